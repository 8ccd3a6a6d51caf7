package termdriver_test

import (
	"context"
	"fmt"
	"log"
	"regexp"
	"time"

	"github.com/ptyhost/ptyhost/termdriver"
)

// Run a program, answer its question, and read the reply off the screen.
func Example() {
	d := termdriver.New(termdriver.Options{})
	defer d.Close(context.Background())

	s, err := d.Start(termdriver.StartSpec{
		Command: []string{"sh", "-c", `printf 'name? '; read name; echo "hello, $name"`},
		Cols:    40, Rows: 5,
	})
	if err != nil {
		log.Fatal(err)
	}
	ctx := context.Background()
	// Trailing blanks are trimmed from screen lines: "name? " reads "name?".
	if _, err := s.Wait(ctx, termdriver.WaitOptions{Pattern: regexp.MustCompile(`(?m)name\?$`), Timeout: 10 * time.Second}); err != nil {
		log.Fatal(err)
	}
	enter, _ := termdriver.ParseKey("Enter")
	if _, err := s.Type(ctx, "ada", enter); err != nil {
		log.Fatal(err)
	}
	res, err := s.Wait(ctx, termdriver.WaitOptions{Pattern: regexp.MustCompile(`hello, \w+`), Timeout: 10 * time.Second})
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(res.Reason, res.Match)
	fmt.Println(res.Screen.Marked("_"))
	// Output:
	// match hello, ada
	// name? ada
	// hello, ada
	// _
}

package testkit_test

import (
	"fmt"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
)

// A screen reads as the rows a user sees, trailing blanks trimmed. In a
// test, testkit.Eventually(t, "the prompt", func() bool { ... }) waits for
// such a text instead of sleeping.
func Example() {
	scr := attachwire.Screen{Cols: 6, Rows: 2}
	for _, r := range "$ ls  a.txt " {
		scr.Primary = append(scr.Primary, attachwire.Cell{Content: string(r)})
	}
	fmt.Printf("%q\n", testkit.Text(scr))
	fmt.Printf("%q\n", testkit.Row(scr.Primary, scr.Cols, 1))
	// Output:
	// "$ ls\na.txt"
	// "a.txt"
}

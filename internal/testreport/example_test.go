package testreport_test

import (
	"fmt"
	"os"
	"strings"

	"github.com/ptyhost/ptyhost/internal/testreport"
)

func Example() {
	events := strings.Join([]string{
		`{"Action":"pass","Package":"example.com/m","Test":"TestA"}`,
		`{"Action":"output","Package":"example.com/m","Test":"TestB","Output":"    b_test.go:7: tmux not installed\n"}`,
		`{"Action":"skip","Package":"example.com/m","Test":"TestB"}`,
		`{"Action":"pass","Package":"example.com/m","Elapsed":0.25}`,
	}, "\n")
	r := testreport.New(os.Stdout)
	_ = r.Consume(strings.NewReader(events))
	for _, s := range r.ToolSkips() {
		fmt.Printf("skipped for a missing tool: %s (%s)\n", s.Test, s.Reason)
	}
	fmt.Printf("%+v\n", r.Counts())
	// Output:
	// ok  	example.com/m	0.250s
	// skipped for a missing tool: TestB (tmux not installed)
	// {Passed:1 Failed:0 Skipped:1}
}

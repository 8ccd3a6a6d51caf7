package term_test

import (
	"fmt"

	"github.com/ptyhost/ptyhost/internal/term"
)

// A backend answers a cursor position query with numbers from its own
// state, never with bytes taken from the query.
func ExampleAppendCPR() {
	fmt.Printf("%q\n", term.AppendCPR(nil, 5, 10, false))
	// Output: "\x1b[5;10R"
}

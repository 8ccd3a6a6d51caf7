package termtest_test

import (
	"fmt"

	"github.com/ptyhost/ptyhost/internal/term/termtest"
)

func ExampleDiff() {
	want, _ := termtest.ParseCapture(6, 1, []byte("\x1b[1mok\x1b[0m go\n"))
	got, _ := termtest.ParseCapture(6, 1, []byte("ok go\n"))
	for _, d := range termtest.Diff(want, got) {
		fmt.Println(d)
	}
	// Output:
	// r0c0: want "o" bold fg=default bg=default, got "o" fg=default bg=default
	// r0c1: want "k" bold fg=default bg=default, got "k" fg=default bg=default
}

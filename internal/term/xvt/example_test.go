package xvt_test

import (
	"fmt"
	"strings"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term"
	"github.com/ptyhost/ptyhost/internal/term/xvt"
)

func Example() {
	vt, err := xvt.New(term.Options{Cols: 20, Rows: 4, Answer: func(p []byte) {
		fmt.Printf("answer %q\n", p) // in the host: queue for the PTY master
	}})
	if err != nil {
		panic(err)
	}
	defer vt.Close()

	vt.Write([]byte("\x1b[1mhello\x1b[0m world\x1b[6n"))

	var s attachwire.Screen
	vt.Screen(&s)
	var row strings.Builder
	for _, c := range s.Primary[:s.Cols] {
		row.WriteString(c.Content)
	}
	fmt.Printf("%q bold=%v cursor=%d,%d\n", strings.TrimRight(row.String(), " "),
		s.Primary[0].Style&attachwire.StyleBold != 0, s.CursorRow, s.CursorCol)
	// Output:
	// answer "\x1b[1;12R"
	// "hello world" bold=true cursor=0,11
}

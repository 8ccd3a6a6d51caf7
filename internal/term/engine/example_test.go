package engine_test

import (
	"fmt"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term"
	"github.com/ptyhost/ptyhost/internal/term/engine"
)

func Example() {
	e := engine.New(term.Options{
		Cols: 20, Rows: 3, Scrollback: 100,
		// Answers come back during Write, in query order.
		Answer: func(p []byte) { fmt.Printf("answer %q\n", p) },
	})
	defer e.Close()
	e.Write([]byte("hello\r\n\x1b[31mworld\x1b[6n"))

	var s attachwire.Screen
	e.Screen(&s)
	w := s.Primary[1*s.Cols]
	fmt.Println(s.CursorRow, s.CursorCol, w.Content, w.Fg == attachwire.IndexedColor(1))
	// Output:
	// answer "\x1b[2;6R"
	// 1 5 w true
}

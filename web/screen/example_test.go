package screen_test

import (
	"fmt"
	"strings"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/web/screen"
)

func Example() {
	s := screen.New(100)
	blank := attachwire.Screen{Cols: 10, Rows: 2, CursorVisible: true, Primary: make([]attachwire.Cell, 20)}
	for i := range blank.Primary {
		blank.Primary[i] = attachwire.BlankCell()
	}
	full := s.Load(nil, &blank)
	fmt.Println(len(full) > 0)
	// Typing one character paints that character and the cursor.
	fmt.Printf("%q\n", s.Write(nil, []byte("a")))
	// A glyph the engine makes two cells wide moves the cursor by two.
	fmt.Printf("%q\n", s.Write(nil, []byte("\u2705b")))
	var got attachwire.Screen
	s.Snapshot(&got)
	fmt.Println(strings.TrimRight(got.Primary[0].Content+got.Primary[1].Content+got.Primary[3].Content, " "))
	// Output:
	// true
	// "\x1b[1H\x1b[Ka\x1b[1;2H"
	// "\x1b[1;2H\x1b[K✅\x1b[4Gb\x1b[1;5H"
	// a✅b
}

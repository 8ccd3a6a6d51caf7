package repaint_test

import (
	"fmt"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/repaint"
)

// A 3x1 screen with a bold green "o": the repaint resets the terminal's
// display state, paints the cells and puts the cursor back.
func ExampleAppendScreen() {
	scr := &attachwire.Screen{
		Cols: 3, Rows: 1, CursorCol: 2, CursorVisible: true,
		Primary: []attachwire.Cell{
			{Content: "o", Style: attachwire.StyleBold, Fg: attachwire.IndexedColor(2)},
			{Content: "k"},
			attachwire.BlankCell(),
		},
	}
	fmt.Printf("%q\n", repaint.AppendScreen(nil, scr, repaint.Options{}))
	// Output:
	// "\x1b[?1049l\x1b[?25l\x1b[0m\x1b[r\x1b[4l\x1b[?6l\x1b[?7l\x1b[H\x1b[2J\x1b[1H\x1b[0;1;32mo\x1b[0mk\x1b[0 q\x1b[?25h\x1b[?7h\x1b[1;3H"
}

package repaint

import (
	"math/rand/v2"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/charmbracelet/x/vt"
	"github.com/ptyhost/ptyhost/attachwire"
)

func TestInlineGolden(t *testing.T) {
	s := goldenScreen()
	s.Rows = 3
	s.Primary = append(s.Primary,
		attachwire.BlankCell(), attachwire.BlankCell(), attachwire.BlankCell(), // a blank row between
		attachwire.Cell{Content: " ", Bg: attachwire.IndexedColor(1)}, attachwire.BlankCell(), attachwire.BlankCell())
	s.Active, s.Alt = attachwire.BufferAlternate, nil // no alternate grid: the primary is shown
	want := "\x1b[0;1;38;2;255;0;128m中\x1b[0;38;5;196;44mx\x1b[0m\n" +
		"\n" +
		"\x1b[0;41m \x1b[0m\n"
	if got := string(AppendInline(nil, s)); got != want {
		t.Fatalf("AppendInline =\n%q\nwant\n%q", got, want)
	}
	blank := &attachwire.Screen{Cols: 2, Rows: 2, Primary: []attachwire.Cell{attachwire.BlankCell(), attachwire.BlankCell(), attachwire.BlankCell(), attachwire.BlankCell()}}
	if got := AppendInline(nil, blank); len(got) != 0 {
		t.Fatalf("blank screen: %q, want nothing", got)
	}
	_ = AppendInline(nil, &attachwire.Screen{Cols: 4, Rows: 4, Active: attachwire.BufferAlternate}) // malformed: no panic
}

// TestInlineReproducesScreen prints screenshots on an emulator as cat does
// on a terminal (the tty turning "\n" into CR LF): the active grid's rows
// appear under the start, the emulator stays on its primary screen with
// its cursor visible and at the start of the line after the picture, and
// only SGR sequences were used.
func TestInlineReproducesScreen(t *testing.T) {
	r := rand.New(rand.NewPCG(31, 32))
	for i := range 150 {
		cols, rows := 1+r.IntN(20), 1+r.IntN(8)
		s := randScreen(r, cols, rows, 0)
		out := string(AppendInline(nil, s))
		checkViewerSafe(t, out, false)
		if strings.Contains(sgrSeq.ReplaceAllString(out, ""), "\x1b") {
			t.Fatalf("case %d: a sequence other than SGR in %q", i, out)
		}
		e := vt.NewEmulator(cols, rows+1)
		e.WriteString(strings.ReplaceAll(out, "\n", "\r\n"))
		grid := s.Primary
		if s.Active == attachwire.BufferAlternate {
			grid = s.Alt
		}
		lines := strings.Count(out, "\n")
		checkGrid(t, "case "+strconv.Itoa(i), e, grid[:lines*cols])
		if e.IsAltScreen() || e.CursorHidden() {
			t.Fatalf("case %d: alt screen %v, cursor hidden %v", i, e.IsAltScreen(), e.CursorHidden())
		}
		if pos := e.CursorPosition(); pos.X != 0 || pos.Y != lines {
			t.Fatalf("case %d: cursor at (%d,%d), want (%d,0)", i, pos.Y, pos.X, lines)
		}
	}
}

// sgrSeq matches one SGR sequence.
var sgrSeq = regexp.MustCompile("\x1b\\[[0-9;]*m")

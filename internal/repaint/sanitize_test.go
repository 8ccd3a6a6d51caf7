package repaint_test

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/sanitize"
	"github.com/ptyhost/ptyhost/internal/repaint"
)

// TestRepaintPassesSanitizer checks the contract between AppendANSI and
// the sanitizer: a repaint comes out of a sanitizer pass byte for byte,
// in the Viewer profile, and in the Driver profile with input modes.
func TestRepaintPassesSanitizer(t *testing.T) {
	r := rand.New(rand.NewPCG(21, 22))
	glyphs := []string{"a", "~", " ", "é", "e\u0301", "─", "\ufffd"}
	cells := func(n int) []attachwire.Cell {
		out := make([]attachwire.Cell, 0, n)
		for len(out) < n {
			c := attachwire.Cell{Content: glyphs[r.IntN(len(glyphs))], Style: attachwire.Style(r.IntN(0x40))}
			switch r.IntN(4) {
			case 1:
				c.Fg = attachwire.IndexedColor(uint8(r.IntN(256)))
			case 2:
				c.Bg = attachwire.RGBColor(uint8(r.IntN(256)), 7, 200)
			}
			if r.IntN(8) == 0 && len(out)+2 <= n {
				out = append(out, attachwire.Cell{Content: "中", Fg: c.Fg, Bg: c.Bg},
					attachwire.Cell{Style: attachwire.StyleWideCont, Fg: c.Fg, Bg: c.Bg})
				continue
			}
			out = append(out, c)
		}
		return out
	}
	for i := range 300 {
		cols, rows := 1+r.IntN(30), 1+r.IntN(10)
		s := &attachwire.Screen{
			Cols: cols, Rows: rows, CursorRow: r.IntN(rows), CursorCol: cols - 1,
			CursorVisible: r.IntN(2) == 0, CursorShape: attachwire.CursorShape(r.IntN(4)),
			Modes:   attachwire.ModeBracketedPaste | attachwire.ModeFocus | attachwire.ModeMouse | attachwire.ModePendingWrap,
			Mouse:   attachwire.MouseProto(1+r.IntN(4)) | attachwire.MouseEncSGR,
			Primary: cells(cols * rows),
		}
		if r.IntN(2) == 0 {
			s.Active, s.Alt = attachwire.BufferAlternate, cells(cols*rows)
		}
		for range r.IntN(12) {
			s.Scrollback = append(s.Scrollback, cells(r.IntN(2*cols)))
		}
		for _, opts := range []repaint.Options{{}, {Scrollback: true}, {Scrollback: true, InputModes: true}} {
			out := repaint.AppendScreen(nil, s, opts)
			profile := sanitize.Viewer
			if opts.InputModes {
				profile = sanitize.Driver
			}
			z := sanitize.New(sanitize.Options{Profile: profile, Cols: cols, Rows: rows})
			if got := z.Append(nil, out); !bytes.Equal(got, out) {
				t.Fatalf("case %d, %+v: the sanitizer changed the repaint\n in: %q\nout: %q", i, opts, out, got)
			}
		}
	}
}

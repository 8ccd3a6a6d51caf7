package ptyhost

import (
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"hash"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term"
)

// fakeTerm is a deterministic stand-in for a terminal backend: its screen
// shows a running SHA-256 of the bytes and resizes it got, so any
// difference in what was fed, or in its order, changes the screen; how the
// bytes were split into writes does not (as for a real terminal, and the
// session splits a large chunk into several writes). It
// answers DA1 ("ESC [ c") like a real terminal.
type fakeTerm struct {
	cols, rows int
	h          hash.Hash
	fed        int
	answer     func([]byte)
	state      int // DA1 matcher: bytes of "\x1b[c" seen so far
}

func newFakeTerm(o term.Options) (term.Terminal, error) {
	return &fakeTerm{cols: o.Cols, rows: o.Rows, h: sha256.New(), answer: o.Answer}, nil
}

func (f *fakeTerm) Write(p []byte) {
	f.h.Write(p)
	f.fed += len(p)
	const da1 = "\x1b[c"
	for _, c := range p {
		switch {
		case c == da1[f.state]:
			f.state++
		case c == da1[0]:
			f.state = 1
		default:
			f.state = 0
		}
		if f.state == len(da1) {
			f.state = 0
			if f.answer != nil {
				f.answer([]byte(term.DA1))
			}
		}
	}
}

func (f *fakeTerm) Resize(cols, rows, pxWidth, pxHeight int) {
	fmt.Fprintf(f.h, "R%d,%d,%d,%d", cols, rows, pxWidth, pxHeight)
	f.cols, f.rows = cols, rows
}

func (f *fakeTerm) Size() (int, int) { return f.cols, f.rows }

func (f *fakeTerm) Screen(dst *attachwire.Screen) {
	dst.Cols, dst.Rows = f.cols, f.rows
	dst.Active = attachwire.BufferPrimary
	dst.CursorRow, dst.CursorCol, dst.CursorVisible = 0, 0, true
	dst.SavedCursorRow, dst.SavedCursorCol = 0, 0
	dst.Alt, dst.Scrollback = nil, nil
	dst.Primary = make([]attachwire.Cell, f.cols*f.rows)
	for i := range dst.Primary {
		dst.Primary[i] = attachwire.BlankCell()
	}
	sum := hex.EncodeToString(f.h.Sum(nil)) + fmt.Sprintf(":%d", f.fed)
	for i := 0; i < len(sum) && i < len(dst.Primary); i++ {
		dst.Primary[i].Content = sum[i : i+1]
	}
}

func (f *fakeTerm) Close() error { return nil }

package engine

import "github.com/ptyhost/ptyhost/attachwire"

// The methods here serve a renderer that shows the engine's screen on
// another terminal (the browser viewer draws it with xterm.js) and
// repaints only what changed: the visible grids without the scrollback,
// which Screen copies whole, the scrollback's growth as a count, and the
// width the engine gives a character, so that the renderer's terminal
// draws each glyph across the cells the engine gave it.

// RuneWidth returns the cells the engine gives r when it prints it: 1 or
// 2, or 0 for a character that joins the cell before it (a combining
// mark, a variation selector, a joiner). A character printed right after
// a zero-width joiner joins that cell too, whatever its width, and a
// cluster keeps the width of its first character. Controls (C0, DEL, C1)
// are never printed and have width 0.
func RuneWidth(r rune) int {
	switch {
	case r < 0x20, r >= 0x7F && r < 0xA0:
		return 0
	case r < 0x7F:
		return 1
	}
	return runeWidth(r)
}

// Visible fills dst as Screen does, without the scrollback: dst.Scrollback
// is left empty (its storage kept). It costs O(cols·rows) whatever the
// scrollback holds.
func (e *Engine) Visible(dst *attachwire.Screen) {
	e.screenHeader(dst)
	dst.Primary = e.gridCells(dst.Primary, e.prim)
	if e.altActive {
		dst.Alt = e.gridCells(dst.Alt, e.alt)
	} else {
		dst.Alt = nil
	}
	dst.Scrollback = dst.Scrollback[:0]
}

// History returns how many lines the scrollback holds, how many lines
// have ever been pushed into it, and a count of its changes other than
// pushes (erased by ED 3, lines pulled back onto the screen or rewrapped
// by a resize). While changed stays the same, the lines pushed since a
// count p are the newest pushed-p (when that is at most lines).
func (e *Engine) History() (lines int, pushed, changed uint64) {
	return e.sb.len(), e.sb.pushed, e.sb.changed
}

// ScrollbackLine returns scrollback line i (0 the oldest, as Screen
// orders them) in dst's storage: its cells with trailing default blanks
// dropped, so it may be shorter than the screen, or longer after a
// resize left it at an older width. It returns dst[:0] when i is out of
// range.
func (e *Engine) ScrollbackLine(i int, dst []attachwire.Cell) []attachwire.Cell {
	if i < 0 || i >= e.sb.len() {
		return dst[:0]
	}
	return e.scrollbackCells(i, dst)
}

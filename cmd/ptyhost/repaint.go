package main

import (
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/sanitize"
	"github.com/ptyhost/ptyhost/internal/repaint"
)

// appendANSIScreen appends the screenshot exec --format ansi and play
// --screen --format ansi print: the screen's lines with their colors, and
// nothing that moves the cursor or changes a mode, so that cat-ing it
// leaves the terminal as it was. It is escape-safe by construction; it
// still goes through a Viewer sanitizer, since no viewer trusts an
// upstream pass.
func appendANSIScreen(dst []byte, scr *attachwire.Screen) []byte {
	paint := repaint.AppendInline(nil, scr)
	return sanitize.New(sanitize.Options{Cols: scr.Cols, Rows: scr.Rows}).Append(dst, paint)
}

// appendDriverRepaint appends the repaint run paints on attach: the
// screen, the cursor, the display modes and the input modes the program
// had on (mouse, focus, bracketed paste, cursor keys), since the driving
// terminal's input goes to the program; through a Driver sanitizer, which
// passes those modes.
func appendDriverRepaint(dst []byte, scr *attachwire.Screen) []byte {
	paint := repaint.AppendScreen(nil, scr, repaint.Options{InputModes: true})
	san := sanitize.New(sanitize.Options{Profile: sanitize.Driver, Cols: scr.Cols, Rows: scr.Rows})
	return san.Append(dst, paint)
}

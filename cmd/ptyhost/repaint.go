package main

import (
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/sanitize"
)

// appendANSIScreen appends the repaint of scr that exec --format ansi and
// play --screen --format ansi print: the screen, the cursor and the
// display modes. The repaint is escape-safe by construction; it still goes
// through a Viewer sanitizer, since no viewer trusts an upstream pass.
func appendANSIScreen(dst []byte, scr *attachwire.Screen) []byte {
	paint := scr.AppendANSI(nil, attachwire.RepaintOptions{})
	return sanitize.New(sanitize.Options{Cols: scr.Cols, Rows: scr.Rows}).Append(dst, paint)
}

// appendDriverRepaint appends the repaint run paints on attach: the same,
// plus the input modes the program had on (mouse, focus, bracketed paste,
// cursor keys), since the driving terminal's input goes to the program;
// through a Driver sanitizer, which passes those modes.
func appendDriverRepaint(dst []byte, scr *attachwire.Screen) []byte {
	paint := scr.AppendANSI(nil, attachwire.RepaintOptions{InputModes: true})
	san := sanitize.New(sanitize.Options{Profile: sanitize.Driver, Cols: scr.Cols, Rows: scr.Rows})
	return san.Append(dst, paint)
}

package main

import "github.com/ptyhost/ptyhost/attachwire"

// appendANSIScreen appends the repaint of scr that exec --format ansi and
// play --screen --format ansi print: the screen, the cursor and the
// display modes, nothing a Viewer-profile sanitizer would drop.
func appendANSIScreen(dst []byte, scr *attachwire.Screen) []byte {
	return scr.AppendANSI(dst, attachwire.RepaintOptions{})
}

// appendDriverRepaint appends the repaint run paints on attach: the same,
// plus the input modes the program had on (mouse, focus, bracketed paste,
// cursor keys), since the driving terminal's input goes to the program.
func appendDriverRepaint(dst []byte, scr *attachwire.Screen) []byte {
	return scr.AppendANSI(dst, attachwire.RepaintOptions{InputModes: true})
}

package main

// restoreTrailer puts a terminal back in a sane state after a session or a
// replay, whatever the program left on (SANITIZER.md, lifecycle duties):
// mouse tracking and its encodings, focus events, bracketed paste, the
// deferred-reply and key-encoding switches (?2048, ?2031, kitty keyboard
// flags popped, modifyOtherKeys reset), cursor keys and keypad back to
// normal, the alternate screen left, the cursor shown in its default
// shape, attributes, hyperlink and colors reset; and the display state the
// Driver profile lets a program change: charsets (G0/G1 back to ASCII,
// shift-in), the scroll region, insert mode, origin mode and autowrap.
//
// The cursor stays where the program left it on the primary screen, so
// the shell's next prompt comes below the program's last output: leaving
// the alternate screen restores the cursor saved on entering it, and the
// two resets that home the cursor (DECSTBM and DECOM) are wrapped in
// DECSC/DECRC. DECRC also restores the origin mode DECSC saved: a program
// that exits with origin mode on leaves it on, but with the full-screen
// margins restored it addresses the screen as origin mode off does, and
// turning it off would home the cursor. DECRC restores the pen and the
// charsets as well, so those are reset after it.
const restoreTrailer = "" +
	"\x1b[?1000l\x1b[?1002l\x1b[?1003l\x1b[?1005l\x1b[?1006l\x1b[?1015l" +
	"\x1b[?1004l\x1b[?2004l\x1b[?2048l\x1b[?2031l" +
	"\x1b[<u\x1b[>4m" +
	"\x1b[?1l\x1b>" +
	"\x1b[?1049l\x1b[?25h\x1b[0 q" +
	"\x1b7\x1b[?6l\x1b[r\x1b8" +
	"\x1b[0m\x1b]8;;\x1b\\" +
	"\x1b]104\x1b\\\x1b]110\x1b\\\x1b]111\x1b\\\x1b]112\x1b\\" +
	"\x1b(B\x1b)B\x0f\x1b[4l\x1b[?7h"

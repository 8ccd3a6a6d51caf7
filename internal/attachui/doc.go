// Package attachui is the terminal side of `ptyhost attach`, apart from
// the terminal's modes: the prefix-key reader (Keys) and the painter of
// the mirrored screen with its one status line (Display), whose words are
// package status's.
//
// The status line is drawn over the terminal's bottom row and never
// written into the stream: the mirrored screen is only ever painted from
// the viewer's mirror (a repaint) or from the stream's own sanitized
// Output. While the status line shows, every Output is painted as a
// repaint from the mirror plus the line, so the line cannot be scrolled or
// overwritten into the screen; when it goes, one repaint from the mirror
// puts the screen back exactly. Output the terminal has already been
// painted past (a repaint shows the mirror up to its seq) is dropped by
// seq.
//
// Concurrency: a Display is safe for concurrent use (events come from the
// viewer's goroutine, keys and timers from others); Keys is used by one
// goroutine.
package attachui

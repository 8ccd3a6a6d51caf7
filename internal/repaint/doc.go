// Package repaint turns an attachwire.Screen back into the escape
// sequences that show it on a real terminal: the snapshot repaint that
// ptyhost run paints when it attaches (AppendScreen), the inline
// screenshot exec --format ansi prints (AppendInline), and the SGR color
// parameters the terminal engines also use to report their pen
// (AppendSGRColor).
//
// Everything it writes is within what a Viewer-profile sanitizer
// (attachwire/sanitize) passes unchanged, plus the Driver-profile input
// modes when Options.InputModes asks for them; cell contents that are not
// printable UTF-8 are painted as U+FFFD. The functions are pure: they
// append to dst and never modify the Screen, so they are safe for
// concurrent use on distinct destinations.
package repaint

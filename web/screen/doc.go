// Package screen is the browser viewer's terminal: the session's screen
// kept by the host's own terminal engine (internal/term/engine), and the
// paint that shows it on the page's xterm.js, which only renders.
//
// Model: a Screen is loaded from a Snapshot (Load, as package viewer's
// mirror loads one: the snapshot repainted into a fresh engine, which
// answers no query) and fed each Output frame's payload as the host sent
// it (Write) and each Resize (Resize). Each call returns the escape
// sequences that bring the page's terminal from what it was last painted
// with to what the engine shows: the rows that changed, from their first
// changed cell, each cell's text at its column with its SGR; the lines
// the engine pushed into its scrollback, scrolled into the terminal's
// scrollback; the alternate screen; the cursor's position, visibility
// and shape; and, while the page holds the pen (SetInput), the program's
// input modes. So the page's screen is the engine's by construction,
// never the terminal's own reading of the stream.
//
// The paint uses a small set of sequences (CUP, CHA, EL, ED 2 and 3,
// SGR with ';' parameters, LF, DEC modes 6, 7, 25, 47/1047 and the input
// modes, DECSTBM and IRM resets, DECSCUSR) and prints only cell
// contents, so nothing the program sent reaches the terminal's parser:
// no query, title, clipboard write or hyperlink. Autowrap stays off and
// every glyph is placed by the paint; the terminal must give each
// character the engine's width (RuneWidth in internal/term/engine, which
// the page registers as xterm.js's Unicode provider), and the column is
// set again after every glyph that is not one ASCII character.
//
// A Load, a Resize or a change of the scrollback other than lines pushed
// (ED 3, a resize's rewrap) repaints everything, scrollback included.
// Otherwise the engine tells which rows changed since the last paint
// (engine.RowCache: each row's stored cells compared with a copy, no
// conversion of the rest), and only those are compared cell by cell and
// repainted from their first changed cell; a scroll into the scrollback
// compares every row. The engine keeps the scrollback lines New was given, as the
// terminal must (its scrollback option).
//
// Concurrency: a Screen is not safe for concurrent use; the page calls it
// from its one event loop.
package screen

// Package engine is ptyhost's in-house headless terminal: a backend of
// term.Terminal built for a session host's read loop.
//
// Model. Each screen buffer (primary, alternate) is a ring of rows whose
// cells are 12-byte values with no pointer: a rune or an index into a small
// intern table of multi-rune grapheme clusters, the style bits and two
// colors. A row stores only its leading n cells; the rest all equal the
// row's fill cell, so clearing a row (in any background), DECALN and
// scrolling a fresh row in cost O(1). A full-screen scroll advances the
// ring's start; a scroll region rotates row headers, never cells. A row of
// plain ASCII can instead be held in span form (its text, a byte a column,
// and a few style runs; span.go): printing there copies bytes, and any
// other access turns the row back into cells first.
//
// Scrollback is a bounded ring of Options.Scrollback lines, oldest first.
// The newest 256 lines keep their row buffers (a scroll swaps the leaving
// row with a recycled one), older ones are encoded into a compact byte form
// (UTF-8 text, attribute changes, run-length fills, about a byte a cell);
// every buffer is reused once the rings are full, so feeding allocates
// nothing in steady state.
//
// Parsing is a VT500-style state machine (ground, escape, CSI, DCS, OSC,
// SOS/PM/APC) that decodes UTF-8 statefully before anything looks at a byte
// above 0x7F, with fast paths for runs of printable ASCII and for plain CSI
// parameters. Its structure rules are the viewer-side sanitizer's
// (attachwire/sanitize), so the host's screen is the one a viewer's
// terminal shows: a C1 control, a raw byte 0x80–0x9F outside valid UTF-8
// or UTF-8-encoded (U+0080–U+009F), acts as ESC followed by c-0x40 (0x9B
// is CSI, 0x9C ST ends a string, any other C1 abandons what is being
// parsed), and a non-ASCII byte inside an escape or control sequence
// makes it invalid, consumed to its final byte and dropped. There tmux
// 3.3a ignores the C1 control or the character (x/vt acts on raw C1 bytes
// too, but ignores UTF-8-encoded ones and aborts a sequence at a
// non-ASCII character); fidelity_test.go lists those divergences. Invalid UTF-8 in text is
// dropped, and elsewhere, where terminals differ, the engine follows
// tmux, the fidelity oracle (see fidelity_test.go and gen_test.go for the
// differences left).
//
// Bounds. Every count taken from the input is clamped to the screen, every
// buffered string is capped, and a parameter past 2^31-1 discards its
// sequence, so no byte costs more than O(cols + rows) steps, amortized
// over the input (the fuzz target checks an explicit budget). Memory is
// fixed by the size and Options.Scrollback: the cluster table holds at
// most about twice the cells of the screens and of the 256 newest
// scrollback lines, and never more than its index field can address
// (clusters.go). A resize rewraps the screen and those 256 lines only,
// leaving older lines at their width, so it costs O(cols·(rows+256))
// however long the scrollback is (reflow.go).
//
// Answers to queries (docs/terminal.md's table) are produced synchronously during
// Write, in query order, through Options.Answer, using the shared encoders
// of package term; none echoes bytes chosen by the input.
//
// Concurrency: an Engine is not safe for concurrent use; the host serializes
// every call under its session lock. It starts no goroutines.
package engine

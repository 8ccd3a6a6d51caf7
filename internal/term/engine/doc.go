// Package engine is ptyhost's in-house headless terminal: a backend of
// term.Terminal built for a session host's read loop.
//
// Model. Each screen buffer (primary, alternate) is a ring of rows whose
// cells are 12-byte values with no pointer: a rune or an index into a small
// intern table of multi-rune grapheme clusters, the style bits and two
// colors. A row stores only its leading n cells; the rest all equal the
// row's fill cell, so clearing a row (in any background), DECALN and
// scrolling a fresh row in cost O(1). A full-screen scroll advances the
// ring's start; a scroll region rotates row headers, never cells.
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
// parameters. Where terminals differ, it does what tmux and xterm do in
// UTF-8 mode (C1 controls and invalid UTF-8 are not acted on), and on
// details where those two differ it follows tmux, the fidelity oracle (see
// fidelity_test.go and gen_test.go for the differences left).
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
// Answers to queries (TERMINAL.md's table) are produced synchronously during
// Write, in query order, through Options.Answer, using the shared encoders
// of package term; none echoes bytes chosen by the input.
//
// Concurrency: an Engine is not safe for concurrent use; the host serializes
// every call under its session lock. It starts no goroutines.
package engine

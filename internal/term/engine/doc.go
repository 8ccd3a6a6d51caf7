// Package engine is ptyhost's in-house headless terminal: a backend of
// term.Terminal built for a session host's read loop.
//
// Model. Each screen buffer (primary, alternate) is a ring of rows whose
// cells are 12-byte values: a rune or an index into a small intern table of
// multi-rune grapheme clusters, a packed style byte and two colors. A
// full-screen scroll advances the ring's start, so scrolling costs O(1) row
// moves per line; scroll regions rotate row headers, never cells. Lines
// leaving the primary screen are encoded into a compact byte form (UTF-8
// text plus attribute runs) and kept in a bounded ring of Options.Scrollback
// lines whose buffers are reused once it is full.
//
// Parsing is a VT500-style state machine (ground, escape, CSI, DCS, OSC,
// SOS/PM/APC) that decodes UTF-8 statefully before classifying C1 controls,
// with a fast path for runs of printable ASCII. Every count taken from the
// input is clamped to the screen, and every buffered string is capped, so
// no input makes a byte cost more than a bounded multiple of the screen's
// width (see Engine.Write for the exact bound).
//
// Answers to queries (TERMINAL.md's table) are produced synchronously during
// Write, in query order, through Options.Answer, using the shared encoders
// of package term; none echoes bytes chosen by the input.
//
// Concurrency: an Engine is not safe for concurrent use; the host serializes
// every call under its session lock. It starts no goroutines.
package engine

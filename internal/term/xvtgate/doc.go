// Package xvtgate is the one place that decides whether a binary links the
// x/vt terminal backend (package internal/term/xvt, on
// charmbracelet/x/vt and its dependencies).
//
// x/vt ends a grapheme cluster at the end of each Write, so its screen
// depends on how the child's output was split into reads: a combining mark
// or a variation selector that arrives in the next read lands in a cell of
// its own. The session host feeds the terminal in reads of up to 32 KiB
// and promises that replaying frames 1..N gives the snapshot at N; x/vt
// cannot keep that promise, so the library and the CLI do not ship it.
// It stays in the tree as a second opinion for the engine's fidelity
// tests and as a point of comparison for the benchmark harness.
//
// Built with the ptyhost_xvt build tag, New creates an x/vt terminal and
// Built is true; without it (the default), Built is false, New returns an
// error matching ErrNotBuilt, and nothing of charmbracelet is linked.
//
// Concurrency: New may be called from any goroutine; the Terminal it
// returns is not safe for concurrent use (see package xvt).
package xvtgate

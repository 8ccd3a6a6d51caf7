package term

import "github.com/ptyhost/ptyhost/attachwire"

// Terminal is a headless terminal emulator. Implementations are not safe for
// concurrent use: the host serializes every call under its session lock.
type Terminal interface {
	// Write feeds bytes the child wrote. It never blocks on answers and does
	// at most O(cols) work per input byte, whatever the input.
	Write(p []byte)
	// Resize changes the grid size; pxWidth and pxHeight are the window's
	// pixel size as reported with TIOCSWINSZ (0 when unknown).
	Resize(cols, rows, pxWidth, pxHeight int)
	// Size returns the current grid size.
	Size() (cols, rows int)
	// Screen fills dst with the current screen: grids, cursor, modes, saved
	// cursor and up to Options.Scrollback lines of primary scrollback. It
	// leaves dst.Epoch and dst.Echo alone (the host owns them) and reuses
	// dst's slices where it can.
	Screen(dst *attachwire.Screen)
	// Close releases the terminal's resources and goroutines. The callback
	// is not called after Close returns.
	Close() error
}

// Options configures a Terminal backend. The zero value of each field is
// documented with it.
type Options struct {
	// Cols and Rows are the initial size; both must be > 0.
	Cols, Rows int
	// Scrollback is the number of primary-screen lines kept after they
	// scroll off the top; 0 keeps none.
	Scrollback int
	// Answer receives the bytes of an answer to a query, in query order.
	// It must not block and must not retain p. It may be called from the
	// goroutine calling Write or from a backend goroutine, never from two
	// at once. Nil discards answers.
	Answer func(p []byte)
	// Version is the version string put in the XTVERSION answer; empty
	// means ptyhost's version (package internal/version).
	Version string
}

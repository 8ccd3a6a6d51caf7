// Package termtest is the fidelity oracle for the host's terminal
// backends: committed recordings of real programs with tmux's screen for
// each, a way to replay any bytes into a private tmux server and read its
// screen back, and a Grid that reduces a screen to what two emulators can
// be compared on.
//
// Model: a backend under test is fed Recording.Data at Recording.Cols ×
// Recording.Rows, its attachwire.Screen is reduced with FromScreen and
// compared with Diff against Recording.Golden (or TmuxScreen for bytes
// made up by a test). Diff's documentation says exactly what is compared
// and which tmux normalisations it absorbs. TmuxHistory and
// FromScreenHistory add the primary scrollback to the comparison.
//
// Recordings are made by the project (PTYHOST_RECORD=1 go test -run
// TestRecord ./internal/term/termtest) and never re-made in CI; each is
// under 100 KiB. tmux is an external tool: without it the tests that need
// it skip, and fail when PTYHOST_REQUIRE_TOOLS=1.
//
// Concurrency: helpers take a testing.TB and belong to that test's
// goroutine; every tmux server is private (its own socket in a temporary
// directory) and killed at cleanup.
package termtest

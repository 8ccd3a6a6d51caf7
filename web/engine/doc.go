// Package engine is the protocol half of the browser viewer: the state of
// one driver or viewer leg, kept in Go so that the page decodes frames,
// snapshots and controls with attachwire's own codecs and filters output
// with attachwire/sanitize, byte for byte as the Go viewers do. The page
// (web/src) compiles it to WebAssembly through web/wasm and keeps only the
// WebSocket, xterm.js and the widgets.
//
// The model: the Engine owns no connection. The page hands it every binary
// message it receives (Apply) and writes whatever bytes the Engine returns
// (Subscribe, Input, Viewport, Grab, Release, and the Send events of
// Apply). Apply turns a message into Events for the page: bytes to write
// into the terminal (already sanitized), the terminal size to take, and
// the room, presence, pen, marker, exit and error notices, every string in
// them passed through sanitize.UIString.
//
// Frames are applied the way the protocol's viewer duties say: a Snapshot
// is keyed by its atSeq, painted with internal/repaint through a freshly
// reset sanitizer, and the tail continues from atSeq+1; frames are
// deduplicated by host seq; the epoch of the last applied Snapshot and the
// last applied seq are what a reconnect resumes from. The sanitizer runs
// with the Driver profile while this leg holds the pen and the Viewer
// profile otherwise. Taking the pen asks the relay for a fresh snapshot
// (resume_from seq 0) so that the input modes the program set (bracketed
// paste, mouse) are painted; losing it turns them off.
//
// Input carries inputSeq from 1, never reset, and the current
// penGeneration; it is kept until input_ack covers it and sent again after
// a reconnect. An ack below the oldest pending inputSeq means the relay
// forgot this connection's sequence (a relay restart): the pending inputs
// are renumbered from the ack onward and sent again.
//
// Concurrency: an Engine is not safe for concurrent use; the page calls it
// from its one event loop.
//
// Limits: at most MaxPendingInputs unacknowledged Input frames and
// MaxPendingInputBytes of their data; input that would pass either is
// refused whole with an *InputFullError (which the page shows) until acks
// arrive.
package engine

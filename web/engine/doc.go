// Package engine is the protocol half of a driver or viewer leg: the
// state of one leg, kept free of I/O so that the browser page (compiled to
// WebAssembly through web/wasm) and package viewer (ptyhost attach) run
// the same state machine, decoding frames, snapshots and controls with
// attachwire's own codecs and filtering output with attachwire/sanitize.
//
// The model: the Engine owns no connection. Its caller hands it every
// frame it receives (ApplyFrame, or Apply for an encoded message) and
// every lane answer's ack (Ack), and sends the frames it returns
// (Subscribe, Input, Pending, Viewport, Grab, Release, and the Send events
// of ApplyFrame and Ack), encoding each once for its carrier. ApplyFrame
// turns a frame into Events: bytes to write into the terminal (already
// sanitized), the terminal size to take, and the room, presence, pen,
// marker, exit and error notices, every string in them passed through
// sanitize.UIString. A caller that keeps its own screen (Options.Mirror)
// gets each snapshot's Screen and each Output's raw bytes instead of a
// repaint.
//
// Frames are applied the way the protocol's viewer duties say: a Snapshot
// is keyed by its atSeq, painted through a freshly reset sanitizer, and
// the tail continues from atSeq+1; frames are deduplicated by host seq; a
// gap (which a conformant relay never makes) asks once to resume_from the
// last seq applied, and frames wait for the missing one or a snapshot; the
// epoch of the last applied Snapshot and the last applied seq are what a
// reconnect resumes from. The sanitizer runs with the Driver profile while
// this leg holds the pen and the Viewer profile otherwise. For a page,
// taking the pen asks the relay for a fresh snapshot (resume_from seq 0)
// so that the input modes the program set (bracketed paste, mouse) are
// painted, and losing it turns them off. The session has ended (Ended)
// after its Exit frame, or once a room that reported "ended" at a seq has
// been followed up to it. An error control is Final unless it is
// retryable or one after which the relay serves a new leg (ring-miss,
// host-lost, host-still-absent, backpressure, relay-restarting).
//
// Input carries inputSeq from 1 and the penGeneration it was typed under
// (the relay drops it if the pen changed hands since); it is kept until an
// ack covers it and sent again after a reconnect. An ack below the last
// one means the relay forgot this connection's sequence (a relay restart):
// the pending inputs are numbered again from the ack onward, stamped with
// the current penGeneration, and sent again.
//
// A room's history (rewind and search) is read beside the leg:
// HistoryOpener opens a sealed room's history frames with the room key
// before a replay engine applies them or a Searcher looks in them, and
// counts those that fail to open, which are skipped.
//
// Concurrency: an Engine is not safe for concurrent use; the page calls it
// from its one event loop, package viewer under its Client's lock. It
// starts no goroutine.
//
// Limits: at most MaxPendingInputs unacknowledged Input frames and
// MaxPendingInputBytes of their data; input that would pass either is
// refused whole with an *InputFullError (which the page shows) until acks
// arrive.
package engine

// Package viewer is the client side of a driver or viewer leg of
// interactive-attach-v1: it dials a relay's room with an attach token,
// keeps a mirror of the session's screen, follows the pen, presence and
// room state, sends Input while it holds the pen, and reconnects with
// resume after a drop. `ptyhost attach` is built on it; tests and load
// generators use it as a library.
//
// # Model
//
// Dial opens the first leg (a refusal or an unreachable relay is its
// error) and starts the Client. A Client is a carrier per leg (a
// WebSocket, or the degraded lane below), the leg's protocol engine
// (package web/engine, the state machine the browser page runs too) and
// the mirror. The Client subscribes with the viewport, and on every later
// leg with resumeFrom (the last host seq it applied) and resumeEpoch (the
// epoch of the last Snapshot it applied), so that a ring hit replays only
// what it missed and a ring miss serves a Snapshot plus the tail from its
// atSeq+1. The mirror is the project's own terminal engine: a Snapshot
// replaces it (the screen repainted into a fresh engine), frames from
// atSeq+1 are applied in order, frames it already has are dropped by seq,
// and a gap asks the relay to resume. An in-stream Snapshot that
// continues the mirror's stream only confirms it.
//
// Every Output frame goes through the leg engine's stateful sanitizer
// (attachwire/sanitize) before it is handed to Config.OnEvent: the Driver
// profile while this leg holds the pen, the Viewer profile otherwise. No
// viewer trusts the relay's pass. Presence names, error messages and
// marker labels are passed through sanitize.UIString.
//
// Input is numbered from 1 (inputSeq) for the life of the Client, stamped
// with the pen generation current when it is typed and the last host seq
// applied, and kept until the relay's input_ack covers it; a new leg
// resends everything after the last ack, and a relay that lost the count
// (an ack below the last) gets what is pending numbered again from its
// ack. Reconnection waits with equal jitter between Config.BackoffMin and
// BackoffMax (doubling, reset once a leg delivers a frame), or the relay's
// Retry-After or restart hint when longer. When neither WebSocket nor the lane gets through, the error is
// the WebSocket dial's, the lane's after it.
//
// # The degraded lane
//
// After Config.FallbackAfter (3) WebSocket dials in a row fail (no answer,
// or an answer that is not a WebSocket: what a proxy that breaks WebSocket
// does; refusals, 429 and 503 do not count) the Client rides the degraded
// lane (docs/protocol.md §7): an SSE stream down (GET …/sse with the attach
// token, resuming with ?resume_from=&epoch=) and batched POSTs up
// (…/input, at most 256 KiB of Input each, in order, so a batch stays under
// the relay's body limit however much input waits). Both halves carry the token's jti, so the relay keeps the
// same input_ack for the Client on either carrier: inputSeq is one space
// across carriers, and what a carrier left unacknowledged is resent on
// the next. A POST's 200 acknowledges like input_ack; 409 resends from
// its ack (the batch's controls too: it was refused whole); 429 waits
// for Retry-After; network errors and 5xx retry the same batchId (the
// relay dedups it); 410 (the relay lost the SSE half) reopens the SSE at
// once. A lane answering 404 (or failing FallbackAfter times) sends the
// Client back to WebSocket dials, so it never strands. While on the lane
// the Client tries a WebSocket handshake every Config.ProbeInterval
// (30 s); the first that succeeds ends the lane leg and the Client
// resumes on WebSocket from its mirror's position. Frames are applied by
// seq only once, whichever carrier brings them. On the lane a leg joins
// with its token's role (there is no subscribe to ask for another) and
// the viewport goes in the first batch as a Resize.
//
// The Client ends after the Exit frame (or a room that reports
// "ended" once the mirror holds its last frame), on a refusal
// (*RefusedError), or on Close.
//
// # Concurrency
//
// A Client is safe for concurrent use. It owns the connection loop (dial,
// subscribe, read, apply, call OnEvent) and, per leg, a writer (Input,
// controls, Resize, keepalive pings or, on the lane, the POSTs and the
// heartbeat watch) and, on the lane, the upgrade probe. Close cancels
// them all and returns after they have exited. OnEvent is called from the
// connection loop only, one event at a time, in stream order, without the
// Client's lock held: it may call any method except Close (which waits for
// that loop). While OnEvent runs the Client reads nothing more, so a slow
// OnEvent makes the relay skip this viewer to a newer Snapshot.
//
// # Limits
//
// Messages from the relay are read up to Config.ReadLimit (16 MiB by
// default: a Snapshot with scrollback can be large). Input not yet
// acknowledged is bounded by Config.MaxPendingInput (1 MiB) and 4096
// frames (engine.MaxPendingInputs); Input refuses what would pass either
// with ErrInputFull, and InputWait waits for acks to make room.
// Each Input frame carries at most 64 KiB, cut never inside a rune or a
// short escape sequence (internal/inputcut).
// Presence lists are bounded by attachwire's decoder.
package viewer

// Package attachclient carries a terminal session to a relay: the host leg
// of interactive-attach-v1. The host dials out (it never listens), streams
// the session's frames, and applies what the relay sends back.
//
// # Model
//
// RunHost(ctx, HostConfig) runs the leg until the session is over. Each
// attempt calls the TokenSource, dials AttachURL over WebSocket offering
// the subprotocol interactive-attach-v1 (and checks the echo itself),
// sends the host subscribe, and streams: the first attach from seq 0 (all
// the session's ring), a reconnect from the session's head (frames lost
// with a dropped leg are never resent; the relay truncates at the gap and
// asks for a snapshot); after Exit a reconnect resends the Exit frame,
// which the relay drops if it has it. A relay ring-miss error makes the next attach start
// from 0 again. When the carrier falls off the session's ring (the relay
// was slower than the session), it publishes a snapshot and carries on
// from it, so the relay sees a gap followed by a fresh screen.
//
// From the relay it applies stamped Input only (unstamped Input is
// dropped), authoritative Resize verbatim (the session refuses sizes beyond
// its limits; a zero dimension is a framing error), snapshot_request (an
// in-stream snapshot before Exit, a seq-0 one sent directly after it),
// kill (at most once, through HostConfig.Kill) and error controls:
// epoch-stale, ring-miss and relay-restarting are retried, any other
// non-retryable error ends RunHost with a *RelayStopError.
//
// Between attempts it waits with equal-jitter exponential backoff (reset
// once an attempt was admitted by the relay). A planned relay restart is
// announced by an error control, a close 1012, or an HTTP 503 with a
// Retry-After (delta-seconds or a date; 0 means at once); the wait is then
// max(backoff, hint), clamped to BackoffMax, and never ends RunHost. A
// 503 without a Retry-After that parses is an ordinary failure; a 429's
// Retry-After (the relay's dial rate limit) is a floor on the wait in the
// same way. The formats and the backoff are attachwire's, shared with the
// viewer and the relay. epoch-stale is retried within a budget (8 within 2 minutes, the
// count cleared after 30 s admitted); past it RunHost returns
// ErrEpochStale, as it does at once for a token whose epoch is above the
// session's.
//
// # The degraded lane
//
// For paths that break WebSocket (docs/protocol.md §7): after LaneFallbackAfter
// (3) failed WebSocket dials in a row (planned restarts do not count) the
// host rides the lane instead. It GETs …/host/sse?epoch= (Bearer token;
// 200 is the bind, 401 re-mints once, 409 is epoch-stale, 503 with a
// Retry-After a restart) and applies the relay's frames from it, one
// base64 frame per event; Input there is delivered at least once, so it
// is deduplicated by (userId, penGeneration, inputSeq) in a recency set
// of 4096. Every dial (WebSocket and SSE) sends "Attach-Input-Dedup:
// any-carrier"; a relay that answers it replays, to the next leg, Input it
// wrote to a leg that ended, whatever the carriers, and the host then
// dedups on WebSocket too, in the same set. Up, it POSTs …/host/output batches of up to 64 frames
// and 4 MiB of payload (a larger frame goes alone), each
// numbered by its frames' own seqs under a random batchId kept across
// retries: 401 re-mints once, 429 waits Retry-After (seconds or a date;
// 500 ms without one, 50 ms at least), 5xx or no answer retries up to 8 times (50 ms ×
// attempt, at most 1 s), 409 rewinds the pump to the relay's ack from
// the session's ring or, when the ring no longer holds it, resends the
// batch once with gapFrom, and 410 (the relay lost the SSE leg) ends the
// leg. Controls and post-Exit snapshots go in outOfSeq. Each POST is
// bounded by WriteTimeout; an SSE stream silent for LaneSilenceTimeout
// (45 s, three missed heartbeats) ends the leg. A lane leg resumes from
// the relay's last ack.
//
// A WebSocket leg pings the relay every PingInterval (10 s) and ends,
// to be redialled, when nothing (a frame or a pong) arrived for
// SilenceTimeout (25 s): the relay's own rule, so a path that went silent
// without closing is noticed from both ends.
//
// Every UpgradeProbeInterval (30 s) a lane leg tries a WebSocket
// handshake with a fresh token, closed 1000 "upgrade probe"; when one
// succeeds the pump stops between batches (everything read is acked),
// the SSE leg closes and the next WebSocket leg streams from the ack. A
// 404 from the lane, or LaneFallbackAfter failed lane GETs in a row,
// sends the host back to WebSocket dials: a relay without the lane never
// strands it.
//
// # The room's people
//
// The relay tells the host who is here and who holds the pen (presence
// and the pen's controls); HostConfig.Room receives them and
// HostConfig.Link hears when a leg is up or lost, for a sharer's status
// line. A HostControls set as HostConfig.Controls sends the host's own
// controls (kick, pen_take, read_only) on whichever leg is up.
//
// # After Exit
//
// After Exit the leg stays up (reconnecting if need be) until the
// FinalScreenWindow has passed since Exit, to answer snapshot requests,
// then closes 1000 "final-screen window elapsed" and RunHost returns nil.
//
// # Concurrency
//
// RunHost is safe to call from any goroutine; a HostConfig is copied on
// entry. The carrier reads the session's frames through its own
// subscription, at its own pace: a slow relay never blocks the session. A
// leg runs three goroutines (the frame pump, the reader and the leg's
// supervisor, which is RunHost's own; a lane leg adds its upgrade probe,
// and its pump and reader share one POST at a time), and RunHost owns one input writer
// and at most one kill call; all have exited when RunHost returns. A
// WriteInput blocked on a child that does not read its input is waited
// for: such a child holds RunHost until it reads or is stopped.
//
// # Limits
//
// A relay message is at most ReadLimit bytes (16 MiB). Input waiting for
// the session is bounded to 64 frames; past it the carrier stops reading
// the relay, which then stops reading the driver (no keystroke is dropped).
package attachclient

// Package ptyhost hosts a command under a pseudo-terminal and publishes what
// it does as interactive-attach-v1 frames.
//
// # Model
//
// [Spawn] starts the command as a session and process-group leader whose
// controlling terminal is a fresh PTY, with every signal at its default
// disposition even when the host ignores some (under nohup, or as a
// background job). The [Session] owns the master side:
// one goroutine reads it and feeds every chunk, in order, to a headless
// terminal emulator (the single authority on what the screen looks like),
// then publishes the bytes as Output frames. Every frame the host produces (Output, applied
// Resize, Marker, in-stream Snapshot, Exit) gets the next HostSeq, starting
// at 1, and goes into a ring buffer bounded by Spec.RingBytes.
//
// Consumers read the ring through a [Subscription]: a cursor addressed by
// HostSeq that replays what is buffered and then follows live frames. A
// subscription that falls off the ring's tail gets attachwire.ErrRingMiss;
// the host never waits for a consumer, with one opt-in exception:
// [Session.SubscribeHeld] makes the session stop reading the PTY while
// that subscription lags, for at most a bounded time per stall.
//
// The terminal emulator answers the child's queries (cursor position,
// device attributes, colors, modes) on its own, straight to the master,
// through a bounded queue and one writer goroutine: a program that probes
// its terminal works with nobody attached, and one that floods queries
// without reading its input cannot stall the host (excess answers are
// dropped and counted, see [Session.DroppedAnswers]).
//
// # Viewers
//
// [Session.AttachLocal] is the in-process viewer surface. Its Output is
// passed through a fresh attachwire/sanitize pass per attach (Output frames
// in the ring stay the child's raw bytes). The first live attach drives
// (input and resize); attaches made while it lives are read-only and are
// never promoted; after it closes, the next new attach drives. A local
// attach that falls behind the ring is not ended: it receives a resync
// Snapshot (seq 0) and continues after it.
//
// # Recording
//
// With Spec.RecordPath set, the session records an asciinema v2 cast from
// the same publish step as the frames, so the cast's event times are the
// frames' rel_time. The publish step only queues the frame; the recorder's
// own goroutine writes the file, so a slow disk never stalls the session
// (a writer that falls too far behind ends the recording, see
// [Session.RecordErr]). Output is decoded as UTF-8 across reads; the file
// is flushed and synced after the Exit frame, before Done is closed.
// ptyhost never removes or truncates a file it did not create before the
// child has started, and writes to a FIFO or character device only when
// Spec.RecordSpecial allows it.
//
// # Terminal backends
//
// Spec.Backend picks the headless terminal: the in-house engine
// (BackendEngine, the default), built to keep up with a PTY at bounded
// work per byte, or charmbracelet/x/vt behind the guards a host needs
// (BackendXVT), much slower on heavy output. BackendXVT is linked only
// with the ptyhost_xvt build tag (Spawn fails with ErrBackendUnavailable
// otherwise): x/vt's screen depends on how the output is split into
// reads, so it cannot keep the snapshot promise below. It stays as a test
// oracle and a benchmark peer; a default build links nothing of
// charmbracelet.
//
// # Ordering and consistency
//
// One mutex per session orders the stream: feeding the emulator, allocating
// seqs, appending to the ring and waking subscriptions happen under it, so
// a snapshot taken at atSeq N shows exactly the effect of frames 1..N. The
// cast recorder is fed under it too, so its events are in frame order.
//
// # Exit
//
// When the child exits the host drains the master to end of file, publishes
// every pending Output frame and then the Exit frame, which is always the
// last and highest-seq frame of a session. If a background process keeps
// the PTY open after the leader exited, draining stops after a grace of
// [DrainGrace]. A child killed by a signal exits with 128 + signum and the
// signal's name.
//
// # Concurrency
//
// A Session is safe for concurrent use. A Subscription or LocalAttach is a
// cursor for one reader: Next is for one goroutine at a time, while Close
// may be called from any.
// Frames handed out are shared between subscribers and must not be
// modified.
//
// # Limits
//
// The package opens no network listener and imports no network package.
// It runs on Linux and the BSDs (including macOS); elsewhere Spawn returns
// ErrUnsupported.
package ptyhost

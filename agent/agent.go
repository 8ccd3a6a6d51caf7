package agent

import (
	"context"

	"github.com/ptyhost/ptyhost/attachwire"
)

// ErrRingMiss reports a subscription cursor that is not (or no longer) in
// the host's ring: older than its tail, or ahead of its head. It is
// attachwire.ErrRingMiss itself.
var ErrRingMiss = attachwire.ErrRingMiss

// InteractiveSession is a live terminal session as a carrier sees it.
// Implementations are safe for concurrent use.
type InteractiveSession interface {
	// Subscribe replays every buffered frame with seq > after, then
	// streams live frames with no gap. after = 0 means everything
	// buffered. It fails with ErrRingMiss when after is older than the
	// ring's tail or ahead of its head.
	Subscribe(after uint64) (InteractiveSubscription, error)
	// WriteInput writes p verbatim to the program's terminal.
	WriteInput(p []byte) (int, error)
	// Resize applies a new size and returns the seq of the Resize frame
	// that echoes it.
	Resize(cols, rows, pxWidth, pxHeight int) (uint64, error)
	// EmitMarker publishes a Marker frame and returns its seq.
	EmitMarker(label string) (uint64, error)
	// Snapshot returns the current screen and the seq of the last frame it
	// reflects.
	Snapshot() (attachwire.Screen, uint64, error)
	// AppendSnapshot appends the payload of a Snapshot frame showing the
	// screen Snapshot would return to dst, and returns it with the same
	// atSeq. Nothing is published. It is the call for serving snapshots
	// repeatedly: an implementation should not allocate when dst has room,
	// so one reused buffer serves every call. On error dst is returned
	// unchanged.
	AppendSnapshot(dst []byte) ([]byte, uint64, error)
	// EmitSnapshot publishes an in-stream Snapshot frame (before Exit) or
	// returns an out-of-namespace one (seq 0, after Exit).
	EmitSnapshot() (attachwire.Frame, error)
	// Stop ends the program: politely first, by force when ctx is done.
	Stop(ctx context.Context) error
	// Done is closed once the Exit frame is published.
	Done() <-chan struct{}
	// Exit returns how the program ended, and false while it runs.
	Exit() (attachwire.Exit, bool)
}

// InteractiveSubscription is a cursor into a session's frames. It is for
// one goroutine at a time; Close may be called from any goroutine.
type InteractiveSubscription interface {
	// Next returns the next frame, blocking until there is one or ctx is
	// done. After the Exit frame it returns io.EOF; a subscriber that fell
	// off the ring's tail gets ErrRingMiss.
	Next(ctx context.Context) (attachwire.Frame, error)
	// NextSeq is the seq the next frame will carry.
	NextSeq() uint64
	// Close releases the subscription; Next then returns an error. It may
	// be called more than once (a carrier closes on every exit path).
	Close() error
}

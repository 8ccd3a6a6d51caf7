package attachclient

import (
	"context"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/agent"
	"github.com/ptyhost/ptyhost/attachwire"
)

// carrier is what a host leg rides: a WebSocket, or the degraded lane
// (SSE down, POST up). The leg's reader calls next, its pump send, both
// may write; the supervisor calls finish and end. What differs between
// the carriers lives behind it: one message per frame against batches
// with acks and rewinds, a close code against a stream that just ends.
type carrier interface {
	// next returns the next frame from the relay. An error ends the leg:
	// a classified restart or close, a *malformedError, or the read's.
	next(ctx context.Context) (attachwire.Frame, error)
	// batchLimits bounds the frames the pump gathers for one send, in
	// count and payload bytes (a larger frame goes alone).
	batchLimits() (frames, bytes int)
	// send carries frames of the session's stream, in seq order. A
	// non-nil subscription rewinds the pump: the relay holds less than
	// was sent, and the pump goes on from it.
	send(ctx context.Context, frames []attachwire.Frame) (agent.InteractiveSubscription, error)
	// write sends one frame outside the stream: a control, or a
	// snapshot after Exit.
	write(ctx context.Context, frame []byte) error
	// malformed closes the carrier after a malformed relay message, once
	// the framing error control is written.
	malformed(m *malformedError)
	// finish says goodbye when the final-screen window has passed.
	finish()
	// end releases the carrier after the leg ended (err nil: finished),
	// ending a read that blocks.
	end(err error)
	// lane reports whether this is the degraded lane.
	lane() bool
}

// malformedError is a relay message the host cannot decode: the leg ends
// with error framing and, on WebSocket, a close with code.
type malformedError struct {
	code   websocket.StatusCode
	reason string
	cause  error
}

func (e *malformedError) Error() string {
	return "attachclient: malformed relay message: " + e.cause.Error()
}

func (e *malformedError) Unwrap() error { return e.cause }

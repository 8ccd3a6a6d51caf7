package viewer

import (
	"context"
	"errors"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
)

// carrier is what one leg rides: a WebSocket, or the degraded lane (SSE
// down, POST up). The connection loop reads with next, the leg's writer
// sends with send and keeps the carrier alive with ping; abort ends it
// from any goroutine.
type carrier interface {
	// next returns the next frame from the relay.
	next(ctx context.Context) (attachwire.Frame, error)
	// send writes frames queued by the Client, in order.
	send(ctx context.Context, frames []attachwire.Frame) error
	// ping checks the carrier is alive; the lane's relay heartbeats
	// instead.
	ping(ctx context.Context) error
	// finish closes the carrier at the end of its leg: normally (ok) or
	// after an error.
	finish(ok bool, reason string)
	// abort closes it at once; safe from any goroutine.
	abort()
	// lane reports whether this is the degraded lane.
	lane() bool
}

// wsCarrier is a leg on a WebSocket.
type wsCarrier struct{ ws *websocket.Conn }

func (w wsCarrier) next(ctx context.Context) (attachwire.Frame, error) {
	typ, b, err := w.ws.Read(ctx)
	if err != nil {
		w.ws.CloseNow()
		return attachwire.Frame{}, err
	}
	if typ != websocket.MessageBinary {
		w.ws.Close(websocket.StatusUnsupportedData, "binary frames only")
		return attachwire.Frame{}, errors.New("viewer: the relay sent a text message")
	}
	f, err := attachwire.DecodeFrame(b)
	if err != nil {
		w.ws.Close(websocket.StatusProtocolError, "framing error")
		return attachwire.Frame{}, err
	}
	return f, nil
}

func (w wsCarrier) send(ctx context.Context, frames []attachwire.Frame) error {
	for _, f := range frames {
		b, err := f.MarshalBinary()
		if err != nil {
			continue
		}
		if err := w.ws.Write(ctx, websocket.MessageBinary, b); err != nil {
			return err
		}
	}
	return nil
}

func (w wsCarrier) ping(ctx context.Context) error { return w.ws.Ping(ctx) }

func (w wsCarrier) finish(ok bool, reason string) {
	if ok {
		w.ws.Close(websocket.StatusNormalClosure, reason)
		return
	}
	w.ws.CloseNow()
}

func (w wsCarrier) abort()     { w.ws.CloseNow() }
func (w wsCarrier) lane() bool { return false }

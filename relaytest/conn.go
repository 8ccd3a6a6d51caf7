package relaytest

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/relay"
)

// Timeout is how long the expecting helpers wait before failing the test.
const Timeout = 10 * time.Second

// DialOptions tunes Dial. The zero value dials as a native client: the
// token in the Authorization header, subprotocol interactive-attach-v1.
type DialOptions struct {
	// BearerSubprotocol carries the token in a "bearer.<base64url>"
	// subprotocol, as a browser does, instead of the header.
	BearerSubprotocol bool
	// Subprotocols replaces the offered subprotocols (the bearer one is
	// still added when BearerSubprotocol is set). Nil: interactive-attach-v1.
	Subprotocols []string
	// Header holds extra request headers (Origin, ...).
	Header http.Header
}

// Conn is one leg to the relay.
type Conn struct {
	// WS is the underlying WebSocket connection, for what the helpers do not
	// cover (a text message, a ping).
	WS *websocket.Conn
}

// Dial opens a leg to url with tok (empty: no credential). On a refused
// handshake it returns the HTTP response with the error.
func Dial(ctx context.Context, url, tok string, opts *DialOptions) (*Conn, *http.Response, error) {
	if opts == nil {
		opts = &DialOptions{}
	}
	protos := opts.Subprotocols
	if protos == nil {
		protos = []string{relay.Subprotocol}
	}
	h := http.Header{}
	for k, v := range opts.Header {
		h[k] = append([]string(nil), v...)
	}
	switch {
	case tok == "":
	case opts.BearerSubprotocol:
		protos = append(append([]string(nil), protos...), "bearer."+base64.RawURLEncoding.EncodeToString([]byte(tok)))
	default:
		h.Set("Authorization", "Bearer "+tok)
	}
	ws, resp, err := websocket.Dial(ctx, url, &websocket.DialOptions{HTTPHeader: h, Subprotocols: protos})
	if err != nil {
		return nil, resp, err
	}
	ws.SetReadLimit(64 << 20)
	if ws.Subprotocol() != relay.Subprotocol {
		ws.CloseNow()
		return nil, resp, fmt.Errorf("relaytest: relay echoed subprotocol %q", ws.Subprotocol())
	}
	return &Conn{WS: ws}, resp, nil
}

// MustDial dials as Dial does and subscribes with sub, failing the test on
// an error. The connection is closed when the test ends.
func MustDial(t testing.TB, url, tok string, sub attachwire.Subscribe) *Conn {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	c, _, err := Dial(ctx, url, tok, nil)
	if err != nil {
		t.Fatalf("relaytest: dial: %v", err)
	}
	t.Cleanup(func() { c.WS.CloseNow() })
	if err := c.SendControl(ctx, sub); err != nil {
		t.Fatalf("relaytest: subscribe: %v", err)
	}
	return c
}

// Send writes one frame.
func (c *Conn) Send(ctx context.Context, f attachwire.Frame) error {
	b, err := f.MarshalBinary()
	if err != nil {
		return err
	}
	return c.WS.Write(ctx, websocket.MessageBinary, b)
}

// SendControl writes one control frame.
func (c *Conn) SendControl(ctx context.Context, ctl attachwire.Control) error {
	f, err := attachwire.ControlFrame(ctl)
	if err != nil {
		return err
	}
	return c.Send(ctx, f)
}

// Next reads and decodes the next frame. The payload is the caller's.
// As with every read of github.com/coder/websocket, a ctx that expires or
// is cancelled while Next waits closes the connection: to read "until
// nothing more comes", read from a goroutine instead of with a short ctx.
func (c *Conn) Next(ctx context.Context) (attachwire.Frame, error) {
	typ, b, err := c.WS.Read(ctx)
	if err != nil {
		return attachwire.Frame{}, err
	}
	if typ != websocket.MessageBinary {
		return attachwire.Frame{}, errors.New("relaytest: relay sent a text message")
	}
	return attachwire.DecodeFrame(b)
}

// Close closes the leg normally.
func (c *Conn) Close() error { return c.WS.Close(websocket.StatusNormalClosure, "") }

// NextFrame returns the next frame that is not a control, skipping the
// controls before it; it fails the test after Timeout or if the leg closes.
func NextFrame(t testing.TB, c *Conn) attachwire.Frame {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	for {
		f, err := c.Next(ctx)
		if err != nil {
			t.Fatalf("relaytest: waiting for a frame: %v", err)
		}
		if f.Type != attachwire.TypeControl {
			return f
		}
	}
}

// ExpectControl returns the next control of type T, skipping every other
// frame and control before it; it fails the test after Timeout or if the
// leg closes.
func ExpectControl[T attachwire.Control](t testing.TB, c *Conn) T {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	v, err := NextControl[T](ctx, c)
	if err != nil {
		var zero T
		t.Fatalf("relaytest: waiting for %s: %v", zero.ControlType(), err)
	}
	return v
}

// NextControl returns the next control of type T, skipping every other
// frame and control before it, or the error that ends the wait (the leg's
// close, ctx's end): ExpectControl for a caller that handles the error.
func NextControl[T attachwire.Control](ctx context.Context, c *Conn) (T, error) {
	for {
		f, err := c.Next(ctx)
		if err != nil {
			var zero T
			return zero, err
		}
		if f.Type != attachwire.TypeControl {
			continue
		}
		ctl, err := attachwire.DecodeControl(f.Payload)
		if err != nil {
			continue
		}
		if v, ok := ctl.(T); ok {
			return v, nil
		}
	}
}

// Closed is how a leg ended: the close status and reason, and the last
// error control received before it (nil if none).
type Closed struct {
	Status websocket.StatusCode
	Reason string
	Err    *attachwire.ErrorControl
}

// ExpectClose reads until the relay closes the leg, and returns how; it
// fails the test after Timeout.
func ExpectClose(t testing.TB, c *Conn) Closed {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), Timeout)
	defer cancel()
	var last *attachwire.ErrorControl
	for {
		typ, b, err := c.WS.Read(ctx)
		if err != nil {
			var ce websocket.CloseError
			if errors.As(err, &ce) {
				return Closed{Status: ce.Code, Reason: ce.Reason, Err: last}
			}
			if ctx.Err() != nil {
				t.Fatalf("relaytest: the relay did not close the leg: %v", err)
			}
			return Closed{Status: -1, Reason: err.Error(), Err: last}
		}
		if typ != websocket.MessageBinary {
			continue
		}
		f, err := attachwire.DecodeFrame(b)
		if err != nil || f.Type != attachwire.TypeControl {
			continue
		}
		if ctl, err := attachwire.DecodeControl(f.Payload); err == nil {
			if e, ok := ctl.(attachwire.ErrorControl); ok {
				last = &e
			}
		}
	}
}

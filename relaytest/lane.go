package relaytest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
)

// LaneURL maps a room's attach URL (ws:// or wss://) to the degraded
// lane's endpoint under it: "/host/sse", "/host/output", "/sse", "/input"
// or "/sse-ticket".
func LaneURL(attachURL, endpoint string) string {
	u := attachURL
	switch {
	case strings.HasPrefix(u, "wss://"):
		u = "https://" + strings.TrimPrefix(u, "wss://")
	case strings.HasPrefix(u, "ws://"):
		u = "http://" + strings.TrimPrefix(u, "ws://")
	}
	return u + endpoint
}

// SSE is an open SSE-down leg. A background goroutine reads the stream
// into a channel; Close stops and joins it.
type SSE struct {
	// Resp is the 200 response; its Body belongs to the reader.
	Resp *http.Response

	cancel context.CancelFunc
	stop   chan struct{} // closed by Close: the reader stops queueing
	events chan attachwire.SSEEvent
	done   chan struct{}
	err    error // the reader's end, set before done closes

	closeOnce sync.Once
}

// DialSSE opens an SSE-down leg at url (query included) with tok in the
// Authorization header (empty: none, as with a ?ticket= URL). A status
// other than 200 returns the response (body read and closed) and an
// error.
func DialSSE(ctx context.Context, url, tok string) (*SSE, *http.Response, error) {
	return DialSSEHeader(ctx, url, tok, nil)
}

// DialSSEHeader is DialSSE with extra request headers.
func DialSSEHeader(ctx context.Context, url, tok string, header http.Header) (*SSE, *http.Response, error) {
	rctx, cancel := context.WithCancel(context.Background())
	stop := context.AfterFunc(ctx, cancel) // ctx bounds the dial only
	defer stop()
	req, err := http.NewRequestWithContext(rctx, http.MethodGet, url, nil)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	for k, v := range header {
		req.Header[k] = append([]string(nil), v...)
	}
	req.Header.Set("Accept", "text/event-stream")
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		cancel()
		return nil, nil, err
	}
	if resp.StatusCode != http.StatusOK {
		io.Copy(io.Discard, io.LimitReader(resp.Body, 1<<20))
		resp.Body.Close()
		cancel()
		return nil, resp, fmt.Errorf("relaytest: sse: status %d", resp.StatusCode)
	}
	s := &SSE{Resp: resp, cancel: cancel, events: make(chan attachwire.SSEEvent, 64),
		done: make(chan struct{}), stop: make(chan struct{})}
	go s.read()
	return s, resp, nil
}

func (s *SSE) read() {
	defer close(s.done)
	defer s.Resp.Body.Close()
	r := attachwire.NewSSEReader(s.Resp.Body, 32<<20)
	for {
		e, err := r.Next()
		if err != nil {
			s.err = err
			return
		}
		e.Data = bytes.Clone(e.Data) // the reader reuses it
		select {
		case s.events <- e:
		case <-s.stop:
			return
		}
	}
}

// Next returns the next event or comment, or an error when the stream
// ended or ctx is done.
func (s *SSE) Next(ctx context.Context) (attachwire.SSEEvent, error) {
	select {
	case e := <-s.events:
		return e, nil
	case <-ctx.Done():
		return attachwire.SSEEvent{}, ctx.Err()
	case <-s.done:
		select {
		case e := <-s.events:
			return e, nil
		default:
		}
		if s.err == nil || s.err == io.EOF {
			return attachwire.SSEEvent{}, io.EOF
		}
		return attachwire.SSEEvent{}, s.err
	}
}

// NextFrame returns the next frame event's frame, skipping comments.
func (s *SSE) NextFrame(ctx context.Context) (attachwire.Frame, error) {
	for {
		e, err := s.Next(ctx)
		if err != nil {
			return attachwire.Frame{}, err
		}
		if e.IsComment {
			continue
		}
		if e.Event != attachwire.SSEFrameEvent {
			return attachwire.Frame{}, fmt.Errorf("relaytest: sse: event %q, want frame", e.Event)
		}
		return attachwire.DecodeLaneFrame(e.Data)
	}
}

// Close ends the leg (the relay sees the client go) and joins the reader.
func (s *SSE) Close() {
	s.closeOnce.Do(func() { close(s.stop) })
	s.cancel()
	<-s.done
}

// PostResult is a POST-up's answer.
type PostResult struct {
	Status     int
	RetryAfter string
	Body       []byte
}

// Post sends body (marshalled as JSON) to a lane POST endpoint with tok in
// the Authorization header.
func Post(ctx context.Context, url, tok string, body any) (PostResult, error) {
	b, err := json.Marshal(body)
	if err != nil {
		return PostResult{}, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, url, bytes.NewReader(b))
	if err != nil {
		return PostResult{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	if tok != "" {
		req.Header.Set("Authorization", "Bearer "+tok)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		return PostResult{}, err
	}
	defer resp.Body.Close()
	rb, err := io.ReadAll(io.LimitReader(resp.Body, 1<<20))
	if err != nil {
		return PostResult{}, err
	}
	return PostResult{Status: resp.StatusCode, RetryAfter: resp.Header.Get("Retry-After"), Body: rb}, nil
}

// B64 encodes f as a lane frame (standard base64), failing the test if f
// does not marshal.
func B64(t testing.TB, f attachwire.Frame) string {
	t.Helper()
	s, err := attachwire.EncodeLaneFrame(f)
	if err != nil {
		t.Fatalf("relaytest: %v", err)
	}
	return s
}

// B64Control encodes a control as a lane frame.
func B64Control(t testing.TB, c attachwire.Control) string {
	t.Helper()
	f, err := attachwire.ControlFrame(c)
	if err != nil {
		t.Fatalf("relaytest: %v", err)
	}
	return B64(t, f)
}

package attachclient_test

import (
	"context"
	"encoding/base64"
	"fmt"
	"io"
	"sync"

	"github.com/ptyhost/ptyhost/agent"
	"github.com/ptyhost/ptyhost/attachwire"
)

func fakeJWT(session string, epoch uint64) string {
	enc := base64.RawURLEncoding.EncodeToString
	claims := fmt.Sprintf(`{"sessionId":%q,"roomId":%q,"role":"host","epoch":%d,"aud":"relay"}`, session, session, epoch)
	return enc([]byte(`{"alg":"EdDSA","typ":"JWT"}`)) + "." + enc([]byte(claims)) + ".c2lnbmF0dXJl"
}

// fakeSession is an agent.InteractiveSession whose ring the test moves by
// hand: it publishes frames and evicts them in one step, which a real
// session under load does only by chance. Safe for concurrent use.
type fakeSession struct {
	epoch uint64

	mu     sync.Mutex
	frames []attachwire.Frame // frames[i].Seq == i+1
	tail   uint64             // oldest seq still retained
	wake   chan struct{}
	exited bool
	done   chan struct{}
}

var _ agent.InteractiveSession = (*fakeSession)(nil)

func newFakeSession(epoch uint64) *fakeSession {
	return &fakeSession{epoch: epoch, tail: 1, wake: make(chan struct{}), done: make(chan struct{})}
}

func (s *fakeSession) head() uint64 { return uint64(len(s.frames)) }

// publish appends Output frames with the given payloads, then drops every
// frame below evictTo (0: none), under one lock.
func (s *fakeSession) publish(evictTo uint64, payloads ...string) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for _, p := range payloads {
		s.frames = append(s.frames, attachwire.NewOutputFrame(s.head()+1, 0, []byte(p)))
	}
	if evictTo > s.tail {
		s.tail = evictTo
	}
	close(s.wake)
	s.wake = make(chan struct{})
}

func (s *fakeSession) screen() attachwire.Screen {
	scr := attachwire.Screen{Epoch: s.epoch, Cols: 2, Rows: 1, CursorVisible: true}
	scr.Primary = []attachwire.Cell{attachwire.BlankCell(), attachwire.BlankCell()}
	return scr
}

func (s *fakeSession) Subscribe(after uint64) (agent.InteractiveSubscription, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	next := after + 1
	switch {
	case after == 0:
		next = s.tail
	case after > s.head() || after+1 < s.tail:
		return nil, fmt.Errorf("fake: subscribe after %d: %w", after, agent.ErrRingMiss)
	}
	return &fakeSub{s: s, next: next, closed: make(chan struct{})}, nil
}

func (s *fakeSession) WriteInput(p []byte) (int, error)                { return len(p), nil }
func (s *fakeSession) Resize(cols, rows, pxW, pxH int) (uint64, error) { return 0, nil }
func (s *fakeSession) EmitMarker(string) (uint64, error)               { return 0, nil }

func (s *fakeSession) Snapshot() (attachwire.Screen, uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.screen(), s.head(), nil
}

// AppendSnapshot appends the blank screen's Snapshot payload.
func (s *fakeSession) AppendSnapshot(dst []byte) ([]byte, uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	scr := s.screen()
	snap, err := attachwire.NewSnapshot(s.head(), &scr)
	if err != nil {
		return dst, 0, err
	}
	p, err := attachwire.AppendSnapshot(dst, snap)
	if err != nil {
		return dst, 0, err
	}
	return p, s.head(), nil
}

// EmitSnapshot publishes an in-stream snapshot of the blank screen.
func (s *fakeSession) EmitSnapshot() (attachwire.Frame, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	scr := s.screen()
	snap, err := attachwire.NewSnapshot(s.head(), &scr)
	if err != nil {
		return attachwire.Frame{}, err
	}
	f, err := snap.Frame(s.head()+1, 0)
	if err != nil {
		return attachwire.Frame{}, err
	}
	s.frames = append(s.frames, f)
	close(s.wake)
	s.wake = make(chan struct{})
	return f, nil
}

func (s *fakeSession) Stop(context.Context) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if !s.exited {
		s.exited = true
		close(s.done)
	}
	return nil
}

func (s *fakeSession) Done() <-chan struct{} { return s.done }

func (s *fakeSession) Exit() (attachwire.Exit, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return attachwire.Exit{}, s.exited
}

type fakeSub struct {
	s         *fakeSession
	next      uint64
	closed    chan struct{}
	closeOnce sync.Once
}

func (sub *fakeSub) Next(ctx context.Context) (attachwire.Frame, error) {
	s := sub.s
	for {
		s.mu.Lock()
		switch {
		case sub.next < s.tail:
			s.mu.Unlock()
			return attachwire.Frame{}, fmt.Errorf("fake: fell off at %d: %w", sub.next, agent.ErrRingMiss)
		case sub.next <= s.head():
			f := s.frames[sub.next-1]
			sub.next++
			s.mu.Unlock()
			return f, nil
		case s.exited:
			s.mu.Unlock()
			return attachwire.Frame{}, io.EOF
		}
		wake := s.wake
		s.mu.Unlock()
		select {
		case <-wake:
		case <-sub.closed:
			return attachwire.Frame{}, io.ErrClosedPipe
		case <-ctx.Done():
			return attachwire.Frame{}, ctx.Err()
		}
	}
}

func (sub *fakeSub) NextSeq() uint64 { return sub.next }

func (sub *fakeSub) Close() error {
	sub.closeOnce.Do(func() { close(sub.closed) })
	return nil
}

func b64url(s string) string { return base64.RawURLEncoding.EncodeToString([]byte(s)) }

package attachclient_test

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachclient"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
)

// laneBatch is what the fake lane relay recorded of one POST.
type laneBatch struct {
	attachwire.HostBatch
	status int
	token  string
}

// fakeLane is a relay that refuses WebSocket (400) and serves the host
// lane with a scripted prefix of POST answers, then a relay's contiguity
// rule over head.
type fakeLane struct {
	t      *testing.T
	events chan []byte // frames to send on the SSE stream

	mu       sync.Mutex
	head     uint64
	script   []int // statuses for the next POSTs, before the rule
	batches  []laneBatch
	gets     int
	wsDials  int
	getFirst int   // statuses for the first GETs
	maxBody  int64 // > 0: bodies longer are refused 413, as by a relay's limit
	tooLarge int   // POSTs refused so
}

func (f *fakeLane) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	switch {
	case strings.HasSuffix(r.URL.Path, "/host/sse"):
		f.sse(w, r)
	case strings.HasSuffix(r.URL.Path, "/host/output"):
		f.output(w, r)
	default:
		f.mu.Lock()
		f.wsDials++
		f.mu.Unlock()
		http.Error(w, "no websocket here", http.StatusBadRequest)
	}
}

func (f *fakeLane) sse(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.gets++
	first := f.gets == 1 && f.getFirst != 0
	f.mu.Unlock()
	if first {
		w.WriteHeader(f.getFirst)
		return
	}
	w.Header().Set("Content-Type", "text/event-stream")
	w.WriteHeader(http.StatusOK)
	w.(http.Flusher).Flush()
	for {
		select {
		case b := <-f.events:
			fmt.Fprintf(w, ": heartbeat\n\nevent: frame\ndata: %s\n\n", base64.StdEncoding.EncodeToString(b))
			w.(http.Flusher).Flush()
		case <-r.Context().Done():
			return
		}
	}
}

func (f *fakeLane) output(w http.ResponseWriter, r *http.Request) {
	if f.maxBody > 0 && r.ContentLength > f.maxBody {
		f.mu.Lock()
		f.tooLarge++
		f.mu.Unlock()
		http.Error(w, "batch too large", http.StatusRequestEntityTooLarge)
		return
	}
	var b laneBatch
	if err := json.NewDecoder(r.Body).Decode(&b); err != nil {
		f.t.Errorf("fake lane: bad batch: %v", err)
		w.WriteHeader(http.StatusBadRequest)
		return
	}
	b.token = r.Header.Get("Authorization")
	f.mu.Lock()
	defer f.mu.Unlock()
	if len(f.script) > 0 {
		b.status, f.script = f.script[0], f.script[1:]
		f.batches = append(f.batches, b)
		if b.status == http.StatusTooManyRequests {
			w.Header().Set("Retry-After", "Mon, 02 Jan 2006 15:04:05 GMT") // past: no wait
		}
		w.WriteHeader(b.status)
		return
	}
	b.status = http.StatusOK
	if len(b.Frames) > 0 {
		gap := b.GapFrom != nil && *b.GapFrom == b.FirstSeq
		if b.FirstSeq > f.head+1 && !gap {
			b.status = http.StatusConflict
		} else {
			f.head = max(f.head, b.LastSeq)
		}
	}
	f.batches = append(f.batches, b)
	w.WriteHeader(b.status)
	json.NewEncoder(w).Encode(map[string]any{"batchId": b.BatchID, "ackSeq": f.head})
}

func (f *fakeLane) snapshot() (batches []laneBatch, gets, wsDials int, head uint64) {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]laneBatch(nil), f.batches...), f.gets, f.wsDials, f.head
}

// countingSession counts what reaches the child.
type countingSession struct {
	*fakeSession
	mu     sync.Mutex
	inputs []string
}

func (s *countingSession) WriteInput(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.inputs = append(s.inputs, string(p))
	return len(p), nil
}

func (s *countingSession) typed() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.inputs...)
}

func TestLanePostStatusPathsRewindGapFromAndInputDedup(t *testing.T) {
	fl := &fakeLane{t: t, events: make(chan []byte), head: 1, getFirst: http.StatusUnauthorized,
		// The host's subscribe batch: 401 (re-mint once), 503 and 429
		// (retried, same batchId), then accepted.
		script: []int{http.StatusUnauthorized, http.StatusServiceUnavailable, http.StatusTooManyRequests}}
	srv := httptest.NewServer(fl)
	t.Cleanup(srv.Close)
	sess := &countingSession{fakeSession: newFakeSession(1)}
	// The relay holds seq 1; the session's ring holds 4..6 only: the
	// host cannot rewind to 2 and sends gapFrom.
	sess.publish(4, "a", "b", "c", "d", "e", "f")
	var tokens atomic.Int64
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- attachclient.RunHost(ctx, attachclient.HostConfig{
			AttachURL: "ws" + strings.TrimPrefix(srv.URL, "http") + "/v1/rooms/r",
			TokenSource: func(context.Context) (string, error) {
				return fakeJWT("r", 1) + fmt.Sprint(tokens.Add(1)), nil
			},
			Session:              sess,
			Logger:               testLogger(),
			BackoffMin:           time.Millisecond,
			BackoffMax:           10 * time.Millisecond,
			UpgradeProbeInterval: time.Hour,
		})
	}()
	t.Cleanup(func() { cancel(); <-done })

	testkit.Eventually(t, "frames 4..6 accepted past the gap", func() bool { _, _, _, h := fl.snapshot(); return h == 6 })
	batches, gets, wsDials, _ := fl.snapshot()
	if wsDials != 3 || gets != 2 {
		t.Fatalf("%d WebSocket dials and %d lane GETs, want 3 then 2 (a 401, re-minted once)", wsDials, gets)
	}
	sub := batches[:4]
	for i, b := range sub {
		if b.BatchID != sub[0].BatchID || len(b.OutOfSeq) != 1 || len(b.Frames) != 0 {
			t.Fatalf("subscribe attempt %d: %+v: want the same control-only batch", i, b)
		}
	}
	if sub[0].token == sub[1].token || sub[1].token != sub[3].token {
		t.Fatal("the 401 was not answered with one re-minted token")
	}
	rest := batches[4:]
	if len(rest) < 2 || rest[0].status != http.StatusConflict || rest[0].FirstSeq != 4 || rest[0].GapFrom != nil ||
		rest[1].BatchID != rest[0].BatchID || rest[1].GapFrom == nil || *rest[1].GapFrom != 4 || rest[1].LastSeq != 6 {
		t.Fatalf("want 4..6 refused 409, then the same batch with gapFrom 4; got %+v", rest)
	}

	// The relay lost 5..6 (head back to 4): the next batch gets a 409 and
	// the host rewinds from its ring, numbering the batch by its frames.
	fl.mu.Lock()
	fl.head = 4
	fl.mu.Unlock()
	sess.publish(0, "g")
	testkit.Eventually(t, "5..7 resent after the rewind", func() bool { _, _, _, h := fl.snapshot(); return h == 7 })
	batches, _, _, _ = fl.snapshot()
	last := batches[len(batches)-1]
	if last.FirstSeq != 5 || last.LastSeq != 7 || len(last.Frames) != 3 || last.GapFrom != nil {
		t.Fatalf("after the rewind: %+v, want frames 5..7", last)
	}

	// At-least-once down: the same stamped Input twice is typed once.
	in := attachwire.Input{InputSeq: 1, PenGeneration: 2, UserID: "alice", Data: []byte("x")}.Frame(0, 0)
	raw, err := in.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	next := attachwire.Input{InputSeq: 2, PenGeneration: 2, UserID: "alice", Data: []byte("y")}.Frame(0, 0)
	raw2, err := next.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	for _, b := range [][]byte{raw, raw, raw2} {
		fl.events <- b
	}
	testkit.Eventually(t, "the second keystroke", func() bool { return len(sess.typed()) >= 2 })
	if got := sess.typed(); strings.Join(got, "") != "xy" {
		t.Fatalf("typed %q, want x then y once each", got)
	}

	// 410: the relay lost the SSE leg; the host opens a new one.
	fl.mu.Lock()
	fl.script = []int{http.StatusGone}
	fl.mu.Unlock()
	sess.publish(0, "h")
	testkit.Eventually(t, "a new SSE leg after the 410", func() bool { _, g, _, _ := fl.snapshot(); return g >= 3 })
	testkit.Eventually(t, "8 accepted on the new leg", func() bool { _, _, _, h := fl.snapshot(); return h == 8 })
}

func TestLaneSilentSSEStreamIsReopened(t *testing.T) {
	fl := &fakeLane{t: t, events: make(chan []byte)} // never a heartbeat
	srv := httptest.NewServer(fl)
	t.Cleanup(srv.Close)
	sess := newFakeSession(1)
	sess.publish(0, "a")
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- attachclient.RunHost(ctx, attachclient.HostConfig{
			AttachURL:            "ws" + strings.TrimPrefix(srv.URL, "http") + "/v1/rooms/r",
			TokenSource:          func(context.Context) (string, error) { return fakeJWT("r", 1), nil },
			Session:              sess,
			Logger:               testLogger(),
			BackoffMin:           time.Millisecond,
			BackoffMax:           10 * time.Millisecond,
			UpgradeProbeInterval: time.Hour,
			LaneSilenceTimeout:   50 * time.Millisecond,
		})
	}()
	t.Cleanup(func() { cancel(); <-done })
	testkit.Eventually(t, "the silent stream reopened twice", func() bool { _, g, _, _ := fl.snapshot(); return g >= 3 })
	if _, _, ws, h := fl.snapshot(); ws != 3 || h != 1 {
		t.Fatalf("%d WebSocket dials, head %d: want 3 and the frame acked, the host kept on the lane", ws, h)
	}
}

// A session that has produced more than one POST may carry (here 12
// frames of 1 MiB, as a run of large snapshots) goes up in batches bounded
// by bytes as well as frames: each under a relay's body limit (6 MiB
// here), contiguous, and all of them acked. (Before, up to 64 frames went
// in one POST whatever their size: 16 MiB of base64, refused 413, and the
// leg ended, again and again.)
func TestLaneBatchesAreBoundedByBytes(t *testing.T) {
	fl := &fakeLane{t: t, events: make(chan []byte), maxBody: 6 << 20}
	srv := httptest.NewServer(fl)
	t.Cleanup(srv.Close)
	sess := newFakeSession(1)
	big := make([]string, 12)
	for i := range big {
		big[i] = strings.Repeat(string(rune('a'+i)), 1<<20)
	}
	sess.publish(0, big...)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() {
		done <- attachclient.RunHost(ctx, attachclient.HostConfig{
			AttachURL:            "ws" + strings.TrimPrefix(srv.URL, "http") + "/v1/rooms/r",
			TokenSource:          func(context.Context) (string, error) { return fakeJWT("r", 1), nil },
			Session:              sess,
			Logger:               testLogger(),
			BackoffMin:           time.Millisecond,
			BackoffMax:           10 * time.Millisecond,
			UpgradeProbeInterval: time.Hour,
		})
	}()
	t.Cleanup(func() { cancel(); <-done })
	testkit.Eventually(t, "the 12 frames acked", func() bool { _, _, _, h := fl.snapshot(); return h == 12 })
	batches, _, _, _ := fl.snapshot()
	fl.mu.Lock()
	tooLarge := fl.tooLarge
	fl.mu.Unlock()
	if tooLarge != 0 {
		t.Fatalf("%d POSTs refused as too large", tooLarge)
	}
	next := uint64(1)
	for _, b := range batches {
		if len(b.Frames) == 0 {
			continue
		}
		if b.status != http.StatusOK || b.FirstSeq != next || b.LastSeq != next+uint64(len(b.Frames))-1 {
			t.Fatalf("batch %d..%d (%d frames, status %d), want one from %d", b.FirstSeq, b.LastSeq, len(b.Frames), b.status, next)
		}
		next = b.LastSeq + 1
	}
	if next != 13 {
		t.Fatalf("batches carried seqs up to %d, want 12", next-1)
	}
}

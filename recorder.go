package ptyhost

import (
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/cast"
	"github.com/ptyhost/ptyhost/internal/outfile"
)

// Bounds on the frames waiting for the cast writer: a writer this far
// behind (a slow disk, a FIFO nobody reads) ends the recording rather
// than holding more. The frames are the ring's own, shared, so the bytes
// count only what the ring may already have evicted.
const (
	recQueueFrames = 1024
	recQueueBytes  = 4 << 20
)

// recFinishWait bounds how long the lifecycle waits, after Exit, for the
// cast writer to write, flush and sync what is queued; past it the file
// is closed (interrupting a write blocked on a FIFO) and the recording
// reported as failed.
const recFinishWait = 5 * time.Second

// errRecordBehind ends a recording whose writer fell recQueueFrames or
// recQueueBytes behind.
var errRecordBehind = errors.New("the cast writer fell behind; recording stopped")

// recorder writes the session's asciinema v2 cast (Spec.RecordPath). It is
// fed from publishLocked, under the session lock, so its events are in
// frame order and carry the frames' rel_time: the cast and the wire share
// one clock. The lock only covers queueing: the file is written by the
// recorder's own goroutine (run), so a slow disk never holds up the PTY
// feed, Snapshot, Resize or EmitMarker. A failure (a write error, or a
// writer too far behind) stops the recording, not the session: it is
// logged once and reported by Session.RecordErr.
type recorder struct {
	out *outfile.File
	hdr cast.Header
	log *slog.Logger

	// Producer side, under the session lock.
	queue  chan recEvent
	closed bool // no more events: finished or fallen behind

	queued     atomic.Int64 // payload bytes in queue
	behind     atomic.Bool  // the writer fell behind: skip what is queued
	finishWait time.Duration
	done       chan struct{} // closed when run returns

	mu  sync.Mutex
	err error
}

// recEvent is a frame for the cast, or the end of the recording at end.
type recEvent struct {
	f   attachwire.Frame
	end bool
}

// openRecorder opens the cast file (see internal/outfile: an existing file
// is kept until the session starts, a device or FIFO needs
// Spec.RecordSpecial). It runs before the child is started, so a bad path
// fails Spawn with nothing running. The header is written by run.
func openRecorder(spec Spec, env []string, start time.Time) (*recorder, error) {
	out, err := outfile.Open(spec.RecordPath, outfile.Options{AllowSpecial: spec.RecordSpecial})
	if errors.Is(err, outfile.ErrNotRegular) {
		return nil, fmt.Errorf("%w: record: %w", ErrInvalidSpec, err)
	}
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	return &recorder{
		out: out,
		hdr: cast.Header{
			Version:   spec.RecordVersion,
			TermType:  envValue(env, "TERM"),
			Width:     spec.Cols,
			Height:    spec.Rows,
			Timestamp: start.Unix(),
			Command:   strings.Join(spec.Command, " "),
			Env:       map[string]string{"TERM": envValue(env, "TERM"), "SHELL": envValue(env, "SHELL")},
		},
		log:        spec.Logger,
		queue:      make(chan recEvent, recQueueFrames+1), // +1: room for the end
		finishWait: recFinishWait,
		done:       make(chan struct{}),
	}, nil
}

// record queues the event for f, if its type has one. Called under the
// session lock; it never blocks.
func (r *recorder) record(f attachwire.Frame) {
	switch f.Type {
	case attachwire.TypeOutput, attachwire.TypeResize, attachwire.TypeMarker, attachwire.TypeExit, attachwire.TypeInput:
	default:
		return
	}
	if r.closed {
		return
	}
	n := int64(len(f.Payload))
	if len(r.queue) >= recQueueFrames || r.queued.Load()+n > recQueueBytes {
		r.behind.Store(true)
		r.fail(errRecordBehind)
		r.closeQueue()
		return
	}
	r.queued.Add(n)
	r.queue <- recEvent{f: f}
}

// finish queues the end of the cast at time t: run flushes and syncs it
// and closes the file. Called once, at Exit, under the session lock.
func (r *recorder) finish(t uint64) {
	if r.closed {
		return
	}
	r.queue <- recEvent{f: attachwire.Frame{RelTime: t}, end: true} // the reserved slot
	r.closeQueue()
}

func (r *recorder) closeQueue() {
	r.closed = true
	close(r.queue)
}

// run is the recorder's writer goroutine, owned by the session (started
// with the child, joined by the lifecycle through wait): it starts the
// output (truncating an existing file only now), writes the header and the
// queued events, and at the end flushes, syncs and closes the file.
func (r *recorder) run(wg *sync.WaitGroup) {
	defer wg.Done()
	defer close(r.done)
	var w *cast.Writer
	err := r.out.Begin()
	if err == nil {
		w, err = cast.NewWriter(r.out, r.hdr)
	}
	r.fail(err)
	for ev := range r.queue {
		r.queued.Add(-int64(len(ev.f.Payload)))
		if r.failed() {
			continue // drain: the producer never waits on us
		}
		if ev.end {
			r.fail(w.Close(ev.f.RelTime))
			if !r.failed() {
				r.fail(r.out.Sync())
			}
			continue
		}
		r.fail(writeEvent(w, ev.f))
	}
	r.out.Close() // a second Close, after wait's, is harmless
}

// writeEvent writes the cast event of f.
func writeEvent(w *cast.Writer, f attachwire.Frame) error {
	switch f.Type {
	case attachwire.TypeOutput:
		return w.Output(f.RelTime, f.Payload)
	case attachwire.TypeResize:
		rs, err := attachwire.DecodeResize(f.Payload)
		if err != nil {
			return err
		}
		return w.Resize(f.RelTime, int(rs.Cols), int(rs.Rows))
	case attachwire.TypeMarker:
		m, err := attachwire.DecodeMarker(f.Payload)
		if err != nil {
			return err
		}
		return w.Marker(f.RelTime, m.Label)
	case attachwire.TypeExit:
		ex, err := attachwire.DecodeExit(f.Payload)
		if err != nil {
			return err
		}
		return w.Exit(f.RelTime, int(ex.Code))
	case attachwire.TypeInput:
		// Not an Input frame: the recorder's own event, whose payload is
		// the bytes written (see Session.recordInput).
		return w.Input(f.RelTime, f.Payload)
	}
	return nil
}

// wait joins run after finish (or a fall behind), outside the session
// lock. A writer that fell behind may be blocked on a FIFO nobody reads:
// closing the file releases it. One that takes longer than finishWait is
// stopped the same way and the recording reported as failed.
func (r *recorder) wait() {
	if r.behind.Load() {
		r.out.Close()
	}
	t := time.NewTimer(r.finishWait)
	defer t.Stop()
	select {
	case <-r.done:
		return
	case <-t.C:
	}
	r.fail(fmt.Errorf("not written within %v of exit", r.finishWait))
	r.out.Close()
	<-r.done
}

// abandon releases a cast whose session never started: the file is
// removed only if openRecorder created it.
func (r *recorder) abandon() {
	if err := r.out.Abort(); err != nil {
		r.log.Warn("ptyhost: release cast file", "path", r.out.Name(), "err", err)
	}
}

// fail records the first error that stopped the recording and logs it.
func (r *recorder) fail(err error) {
	if err == nil {
		return
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.err != nil {
		return
	}
	r.err = fmt.Errorf("ptyhost: record %s: %w", r.out.Name(), err)
	r.log.Error("ptyhost: cast recording stopped", "path", r.out.Name(), "err", err)
}

func (r *recorder) failed() bool {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.err != nil
}

// RecordErr returns the error that stopped the cast recording, or nil if
// there is no recording or it is going well. It reports a writer that
// fell too far behind the session and a failure to flush or sync the file
// at exit too.
func (s *Session) RecordErr() error {
	if s.rec == nil {
		return nil
	}
	s.rec.mu.Lock()
	defer s.rec.mu.Unlock()
	return s.rec.err
}

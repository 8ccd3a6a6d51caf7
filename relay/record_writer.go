package relay

import (
	"errors"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/cast"
	"github.com/ptyhost/ptyhost/internal/castchain"
	"github.com/ptyhost/ptyhost/internal/repaint"
)

// run is the recording's writer goroutine (joined by recorders.close): it
// opens the file, writes the header once it knows the terminal's size
// (the first resize or snapshot, else the first event finds 80x24), then
// the events, a signed checkpoint whenever the room goes quiet, and at the
// end a closing line. A failed write stops the recording.
func (r *roomRecording) run() {
	defer r.rs.wg.Done()
	defer close(r.done)
	w := &recWriter{r: r}
	f, err := r.rs.open(r.path)
	if err != nil {
		w.fail(err)
	} else {
		r.mu.Lock()
		r.file = f
		r.mu.Unlock()
		w.chain = castchain.NewWriter(f, castchain.Options{Key: r.rs.cfg.Key, Every: r.rs.cfg.CheckpointEvery})
	}
	tick := time.NewTicker(r.rs.cfg.CheckpointEvery)
	defer tick.Stop()
	var batch []recEvent
	for {
		var closed bool
		batch, closed = r.queue.take(batch)
		for _, ev := range batch {
			w.event(ev)
		}
		if len(batch) > 0 {
			w.flush()
		}
		clear(batch) // drop the payloads now, not at the next take
		if closed {
			break
		}
		select {
		case <-r.queue.wake:
		case <-tick.C:
			w.checkpoint()
		}
	}
	w.close()
	r.stopWait.Stop()
	r.mu.Lock()
	if r.file != nil && !r.cut {
		r.file.Close()
	}
	cut := r.cut
	r.mu.Unlock()
	if cut {
		w.fail(errors.New("not written within the finish wait; the file was closed under the writer"))
	}
	r.rs.end(r.path)
}

// recWriter is the writer goroutine's state.
type recWriter struct {
	r      *roomRecording
	chain  *castchain.Writer
	cw     *cast.Writer
	cols   int
	rows   int
	last   time.Time
	failed bool
	ended  bool
}

// fail stops the recording after a write error: a metric and a log line;
// the file keeps what reached it, and has no closing line.
func (w *recWriter) fail(err error) {
	if w.failed {
		return
	}
	w.failed = true
	if !w.r.overflow.Load() { // an overflow was counted when it happened
		w.r.rs.failed.Inc()
	}
	w.r.rs.rl.log.Error("relay: recording failed; the room goes on", "room", w.r.key.session, "path", w.r.path, "err", err)
}

func (w *recWriter) us(at time.Time) uint64 {
	if at.Before(w.last) {
		at = w.last
	}
	w.last = at
	return uint64(max(at.Sub(w.r.start).Microseconds(), 0))
}

// header writes the cast's header at the size known so far.
func (w *recWriter) header() bool {
	if w.cw != nil || w.failed {
		return !w.failed
	}
	if w.cols <= 0 || w.rows <= 0 {
		w.cols, w.rows = cast.DefaultWidth, cast.DefaultHeight
	}
	var err error
	w.cw, err = cast.NewWriter(w.chain, cast.Header{Version: 3, Width: w.cols, Height: w.rows,
		Timestamp: w.r.start.Unix(), Title: w.r.key.session})
	if err != nil {
		w.fail(err)
		return false
	}
	return true
}

func (w *recWriter) event(ev recEvent) {
	if w.failed || w.ended {
		return
	}
	if ev.kind == recResize && w.cw == nil {
		w.cols, w.rows = ev.cols, ev.rows
		return
	}
	if ev.kind == recPaint && w.cw == nil {
		w.cols, w.rows = ev.screen.Cols, ev.screen.Rows
	}
	if !w.header() {
		return
	}
	t := w.us(ev.at)
	var err error
	switch ev.kind {
	case recOutput:
		err = w.cw.Output(t, ev.data)
	case recResize:
		if ev.cols == w.cols && ev.rows == w.rows {
			return
		}
		w.cols, w.rows = ev.cols, ev.rows
		err = w.cw.Resize(t, ev.cols, ev.rows)
	case recPaint:
		err = w.paint(t, ev.screen)
	case recMarker:
		err = w.cw.Marker(t, ev.text)
	case recInput:
		err = w.input(t, ev.data)
	case recExit:
		err = w.cw.Exit(t, ev.cols)
	case recEnd:
		w.ended = true
		return
	}
	if err != nil {
		w.fail(err)
	}
}

// paint starts the recording with the screen viewers were shown when it
// began (a recording that starts on a redial starts mid-session): the
// snapshot painted as output, at its size.
func (w *recWriter) paint(t uint64, s *attachwire.Screen) error {
	if s.Cols != w.cols || s.Rows != w.rows {
		w.cols, w.rows = s.Cols, s.Rows
		if err := w.cw.Resize(t, s.Cols, s.Rows); err != nil {
			return err
		}
	}
	return w.cw.Output(t, repaint.AppendScreen(nil, s, repaint.Options{}))
}

// input writes who typed (a comment, since v3's input event has no author)
// then what was typed.
func (w *recWriter) input(t uint64, wire []byte) error {
	f, err := attachwire.DecodeFrame(wire)
	if err != nil {
		return nil
	}
	in, err := attachwire.DecodeInput(f.Payload)
	if err != nil {
		return nil
	}
	if err := w.cw.Comment("input by " + labelID(in.UserID)); err != nil {
		return err
	}
	return w.cw.Input(t, in.Data)
}

func (w *recWriter) flush() {
	if w.cw != nil && !w.failed {
		if err := w.cw.Flush(); err != nil {
			w.fail(err)
		}
	}
}

// checkpoint covers the lines written so far, so a quiet room's recent
// events are signed within CheckpointEvery.
func (w *recWriter) checkpoint() {
	w.flush()
	if w.chain != nil && !w.failed {
		if err := w.chain.Checkpoint(); err != nil {
			w.fail(err)
		}
	}
}

// close ends the file: the failure note when the queue overflowed, the
// cast's last bytes, the closing line, and a sync.
func (w *recWriter) close() {
	if w.failed || !w.header() {
		return
	}
	t := w.us(time.Now())
	if w.r.overflow.Load() {
		w.cw.Comment(castchain.FailedPrefix[len("# "):] + ": the recording fell behind the room and stopped; events after this line were not recorded")
	}
	err := w.cw.Close(t)
	if err == nil {
		err = w.chain.Close()
	}
	if s, ok := w.r.file.(interface{ Sync() error }); ok && err == nil {
		err = s.Sync()
	}
	if err != nil {
		w.fail(err)
	}
}

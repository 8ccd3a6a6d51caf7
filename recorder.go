package ptyhost

import (
	"fmt"
	"log/slog"
	"os"
	"strings"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/cast"
)

// recorder writes the session's asciinema v2 cast (Spec.RecordPath). It is
// driven from publishLocked, so its events are in frame order and carry
// the frames' rel_time: the cast and the wire share one clock. A write
// error stops the recording, not the session: it is logged once and
// reported by Session.RecordErr.
type recorder struct {
	f   *os.File
	w   *cast.Writer
	log *slog.Logger
	err error
}

// openRecorder creates the cast file and writes its header. It runs before
// the child is started, so a bad path fails Spawn with nothing running.
func openRecorder(spec Spec, env []string, start time.Time) (*recorder, error) {
	f, err := os.OpenFile(spec.RecordPath, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, 0o644)
	if err != nil {
		return nil, fmt.Errorf("record: %w", err)
	}
	hdr := cast.Header{
		Width:     spec.Cols,
		Height:    spec.Rows,
		Timestamp: start.Unix(),
		Command:   strings.Join(spec.Command, " "),
		Env:       map[string]string{"TERM": envValue(env, "TERM"), "SHELL": envValue(env, "SHELL")},
	}
	w, err := cast.NewWriter(f, hdr)
	if err != nil {
		f.Close()
		os.Remove(spec.RecordPath)
		return nil, fmt.Errorf("record: %w", err)
	}
	return &recorder{f: f, w: w, log: spec.Logger}, nil
}

// record adds the event for f, if its type has one. Called under the
// session lock.
func (r *recorder) record(f attachwire.Frame) {
	if r.err != nil {
		return
	}
	var err error
	switch f.Type {
	case attachwire.TypeOutput:
		err = r.w.Output(f.RelTime, f.Payload)
	case attachwire.TypeResize:
		var rs attachwire.Resize
		if rs, err = attachwire.DecodeResize(f.Payload); err == nil {
			err = r.w.Resize(f.RelTime, int(rs.Cols), int(rs.Rows))
		}
	case attachwire.TypeMarker:
		var m attachwire.Marker
		if m, err = attachwire.DecodeMarker(f.Payload); err == nil {
			err = r.w.Marker(f.RelTime, m.Label)
		}
	}
	r.fail(err)
}

// finish ends the cast at time t, flushes it and syncs it to disk, then
// closes the file. Called once, at Exit, under the session lock.
func (r *recorder) finish(t uint64) {
	if r.err == nil {
		r.fail(r.w.Close(t))
	}
	if r.err == nil {
		r.fail(r.f.Sync())
	}
	r.fail(r.f.Close())
}

// abandon closes and removes a cast whose session never started.
func (r *recorder) abandon() {
	r.f.Close()
	os.Remove(r.f.Name())
}

func (r *recorder) fail(err error) {
	if err == nil || r.err != nil {
		return
	}
	r.err = fmt.Errorf("ptyhost: record %s: %w", r.f.Name(), err)
	r.log.Warn("cast recording stopped", "err", err)
}

// RecordErr returns the error that stopped the cast recording, or nil if
// there is no recording or it is going well. It reports a failure to
// flush or sync the file at exit too.
func (s *Session) RecordErr() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.rec == nil {
		return nil
	}
	return s.rec.err
}

package relay

import (
	"encoding/json"
	"fmt"
	"io"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
)

// recKind is what a queued recording event holds.
type recKind uint8

const (
	recOutput recKind = iota // data: sanitized output
	recResize                // cols, rows
	recPaint                 // screen: the first snapshot, painted as output before any other
	recMarker                // text: the label
	recInput                 // data: a stamped Input frame (who typed it is inside)
	recExit                  // code
	recEnd
)

type recEvent struct {
	kind       recKind
	at         time.Time
	data       []byte
	text       string
	cols, rows int
	screen     *attachwire.Screen
}

// roomRecording is one recorded room life: the producer side, fed under
// room.mu and never blocking on the writer, and the writer goroutine that
// owns the file. A full queue stops the recording (it is marked failed);
// the room is never held up by it.
type roomRecording struct {
	rs    *recorders
	key   roomKey
	epoch uint64
	path  string
	start time.Time

	// Producer side, under room.mu.
	queue  *recQueue
	closed bool
	// painted: the first snapshot, or output, was queued; later
	// snapshots are not decoded.
	painted bool

	overflow atomic.Bool // the producer stopped the recording
	done     chan struct{}
	stopWait *time.Timer // closes the file under a writer past FinishWait

	mu   sync.Mutex // guards file against the FinishWait timer
	file io.WriteCloser
	cut  bool // the timer closed the file
}

// recordBoundLocked runs when a host leg binds: a recording of another
// epoch ends, and one starts if the relay records this room and none is
// running for this epoch.
func (rm *room) recordBoundLocked(wants bool) {
	rs := rm.relay.rec
	if rs == nil {
		return
	}
	if rm.rec != nil && rm.rec.epoch != rm.epoch {
		rm.rec.finishLocked()
		rm.rec = nil
	}
	if rm.rec != nil || !(rs.cfg.All || wants) {
		return
	}
	if rm.sealID != "" {
		// An asciicast holds text the relay can read; a sealed room's
		// stream is recorded as it is, sealed (record_sealed.go).
		rm.startSealedRecordingLocked(rs)
		return
	}
	now := time.Now()
	path := filepath.Join(rs.cfg.Dir, recordFileName(rm.key, rm.epoch, now))
	if !rs.begin(path) {
		return
	}
	r := &roomRecording{rs: rs, key: rm.key, epoch: rm.epoch, path: path, start: now,
		queue: newRecQueue(), done: make(chan struct{})}
	rm.rec = r
	go r.run()
}

// recordFrameLocked queues what a host frame taken into the ring records:
// the sanitized output viewers are served, resizes, markers and the exit
// (which ends the recording). The first snapshot, if no output came
// before it, is painted; later ones are not recorded.
func (rm *room) recordFrameLocked(typ attachwire.FrameType, payload []byte) {
	r := rm.rec
	if r == nil {
		return
	}
	ev := recEvent{at: time.Now()}
	switch typ {
	case attachwire.TypeOutput:
		if len(payload) == 0 {
			return
		}
		ev.kind, ev.data = recOutput, payload
		r.painted = true // a later snapshot would repeat it
	case attachwire.TypeResize:
		rs, err := attachwire.DecodeResize(payload)
		if err != nil {
			return
		}
		ev.kind, ev.cols, ev.rows = recResize, int(rs.Cols), int(rs.Rows)
	case attachwire.TypeSnapshot:
		if r.painted {
			return // sizes change by Resize frames; decoding is not free
		}
		s, err := attachwire.DecodeSnapshot(payload)
		if err != nil {
			return
		}
		scr, err := attachwire.DecodeScreen(s.Screen)
		if err != nil {
			return
		}
		ev.kind, ev.screen = recPaint, &scr
		r.painted = true
	case attachwire.TypeMarker:
		m, err := attachwire.DecodeMarker(payload)
		if err != nil {
			return
		}
		ev.kind, ev.text = recMarker, m.Label
	case attachwire.TypeExit:
		ex, err := attachwire.DecodeExit(payload)
		if err != nil {
			return
		}
		ev.kind, ev.cols = recExit, int(ex.Code)
		r.pushLocked(rm, ev)
		// Ended, but kept: a host back for the final-screen window binds
		// the same epoch again, which must not start another file.
		r.finishLocked()
		return
	default:
		return
	}
	r.pushLocked(rm, ev)
}

// recordMarkLocked records a room event (a join, a leave, a pen change)
// as a marker; see docs/relay.md for the labels.
func (rm *room) recordMarkLocked(label string) {
	if rm.rec != nil {
		rm.rec.pushLocked(rm, recEvent{kind: recMarker, at: time.Now(), text: label})
	}
}

// recordPresenceLocked records leg l joining or leaving.
func (rm *room) recordPresenceLocked(op string, l *leg) {
	if rm.rec == nil {
		return
	}
	if op == "join" {
		rm.recordMarkLocked(joinLabel(l))
		return
	}
	rm.recordMarkLocked(op + " " + labelID(l.userID))
}

// joinLabel is the marker of l's join: its user id and role, and the
// display name its token carries, marked as a guest's when it came from
// an invite ("join guest-3k9x as "Ann" (guest, viewer)"): a name is what
// a person chose, the id what the relay knows.
func joinLabel(l *leg) string {
	switch {
	case l.name == "":
		return fmt.Sprintf("join %s (%s)", labelID(l.userID), l.role)
	case l.guest:
		return fmt.Sprintf("join %s as %s (guest, %s)", labelID(l.userID), strconv.Quote(l.name), l.role)
	}
	return fmt.Sprintf("join %s as %s (%s)", labelID(l.userID), strconv.Quote(l.name), l.role)
}

// recordPenLocked records the pen going to user, or becoming free.
func (rm *room) recordPenLocked(user string) {
	if rm.rec == nil {
		return
	}
	if user == "" {
		rm.recordMarkLocked("pen free")
		return
	}
	rm.recordMarkLocked("pen " + labelID(user))
}

// recordInputLocked records a stamped Input frame taken for the host.
func (rm *room) recordInputLocked(wire []byte) {
	if rm.rec != nil {
		rm.rec.pushLocked(rm, recEvent{kind: recInput, at: time.Now(), data: wire})
	}
}

// recordClosedLocked ends the room's recording with the room.
func (rm *room) recordClosedLocked() {
	if rm.rec != nil {
		rm.rec.finishLocked()
		rm.rec = nil
	}
}

// labelID is a user id as a marker label shows it: control characters
// and spaces would blur where it ends, so it is quoted when it has any.
func labelID(id string) string {
	if id != "" && !strings.ContainsFunc(id, func(r rune) bool { return r <= ' ' || r == 0x7f || r == '"' }) {
		return id
	}
	b, _ := json.Marshal(id)
	return string(b)
}

// pushLocked queues ev, or stops the recording if the queue is full.
func (r *roomRecording) pushLocked(rm *room, ev recEvent) {
	if r.closed {
		return
	}
	cfg := &r.rs.cfg
	if !r.queue.push(ev, cfg.QueueEvents, cfg.QueueBytes) {
		r.overflow.Store(true)
		r.rs.failed.Inc()
		rm.relay.log.Error("relay: recording fell behind and stopped; the room goes on",
			"room", rm.key.session, "path", r.path)
		r.closeLocked(nil)
		return
	}
}

// finishLocked queues the end of the recording.
func (r *roomRecording) finishLocked() {
	if r.closed {
		return
	}
	r.closeLocked(&recEvent{kind: recEnd, at: time.Now()})
}

// closeLocked closes the queue, after end if given, and arms FinishWait: a writer stuck on a
// stalled disk has that long before its file is closed under it.
func (r *roomRecording) closeLocked(end *recEvent) {
	r.closed = true
	r.stopWait = time.AfterFunc(r.rs.cfg.FinishWait, r.cutOff) // before the close the writer waits on
	r.queue.close(end)
}

// cutOff closes the file under a writer that did not finish in time.
func (r *roomRecording) cutOff() {
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.file != nil && !r.cut {
		r.cut = true
		r.file.Close()
	}
}

package relay

import (
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/sanitize"
)

// roomKey names a room: rooms of two organisations never meet, even with
// the same session id.
type roomKey struct{ org, session string }

// room is one session's meeting point: the host binding (the epoch CAS),
// the ring of sanitized frames, the viewers, the pen, the room's state and
// its timers. Everything below mu is guarded by it; the ring has its own
// lock (taken inside mu, never the other way round) so viewers read it
// without waiting for the room.
//
// States: host-reconnecting (no host leg; the state a room is born in),
// live (a host leg bound), host-gone (no host for HostGoneAfter), ended
// (Exit seen; the room closes EndedFor later). room_state goes to every
// viewer on each transition and on join.
type room struct {
	relay *Relay
	key   roomKey
	ring  *ring
	// hist is the room generation's history on disk, for rewinding; nil
	// without Config.HistoryDir, on a node that does not hold the host, or
	// before the first generation. Under mu.
	hist *history

	// inputs carries stamped Input frames to whichever host leg is bound;
	// a full queue blocks the sending driver's reader.
	inputs chan []byte

	mu       sync.Mutex
	closed   bool
	state    attachwire.RoomStatus
	hasEpoch bool
	epoch    uint64
	host     *leg
	viewers  map[*leg]struct{}
	san      *sanitize.Sanitizer
	exitSeq  uint64
	// pending relay→host controls, coalesced: the latest wins.
	snapReason attachwire.SnapshotReason
	resize     *attachwire.Resize
	pen        pen
	props      proposals
	acks       map[string]uint64 // jti → last consumed inputSeq; survives a same-jti reconnect
	// admitting counts the Input frames admitted for the host and not yet
	// queued (consumedInput): a room handing its queue to another node
	// waits for them (settleHandOff).
	admitting int
	// sent is the Input written to host legs of this epoch, replayed to
	// the next leg (inputwindow.go); unreplayedLogged is set once a loss
	// of it was logged in the host's current absence.
	sent             inputWindow
	unreplayedLogged bool
	goneTimer        *timer
	endTimer         *timer
	cl               *roomCluster // nil: standalone
	pres             presence     // the pending presence update (presence.go)

	rec *roomRecording // nil: not recording (record_room.go)

	// sealKnown is set once a host has bound: sealID is then the key id
	// its frames are sealed under, empty for a plain room (sealed.go).
	sealKnown bool
	sealID    string
}

func newRoom(rl *Relay, key roomKey) *room {
	rm := &room{
		relay:   rl,
		key:     key,
		ring:    newRing(rl.cfg.RingBytes),
		inputs:  make(chan []byte, rl.cfg.HostQueueFrames),
		state:   attachwire.RoomHostReconnecting,
		viewers: make(map[*leg]struct{}),
		san:     newRoomSanitizer(),
		acks:    make(map[string]uint64),
		sent:    inputWindow{maxCount: rl.cfg.ReplayInputs, maxBytes: rl.cfg.ReplayBytes, maxAge: rl.cfg.ReplayAge},
	}
	rm.pen.gen = penBase(rl.cfg.Now())
	if rl.cluster != nil {
		rm.cl = &roomCluster{c: rl.cluster, name: roomName(key)}
	}
	rm.goneTimer = rl.afterFunc(rl.cfg.HostGoneAfter, rm.hostGone)
	return rm
}

// newRoomSanitizer returns the room's one sanitizer: the Driver profile,
// since the frames it passes reach the pen holder's terminal too; every
// viewer still filters again with its own profile.
func newRoomSanitizer() *sanitize.Sanitizer {
	return sanitize.New(sanitize.Options{Profile: sanitize.Driver})
}

// errEpochStale refuses a host leg by the epoch CAS.
type errEpochStale struct {
	epoch, current uint64
	bound          bool
}

func (e *errEpochStale) Error() string {
	return fmt.Sprintf("relay: host epoch %d is stale (room epoch %d, host bound %v)", e.epoch, e.current, e.bound)
}

// errRoomClosed reports a join racing the room's teardown; the caller
// retries on a fresh room.
var errRoomClosed = errors.New("relay: room closed")

// errDraining refuses a leg joining while the relay announces a restart.
var errDraining = errors.New("relay: draining")

// errKicked refuses a leg whose token the room's host removed.
var errKicked = errors.New("relay: " + msgKicked)

// errRoomFull refuses a viewer past MaxViewersPerRoom.
var errRoomFull = errors.New("relay: room is full")

// bindHost runs the (sessionId, epoch) CAS for a host leg with epoch e:
//
//	no host, e < cur   → refuse (epoch-stale, not retryable)
//	no host, e == cur  → resume the stream; seq continues
//	no host, e > cur   → new generation
//	host,    e > cur   → supersede: close the old leg, new generation
//	host,    e <= cur  → refuse (epoch-stale; retryable when e == cur)
//
// A fresh room takes any epoch as a new generation. After any bind the host
// is asked for a resync snapshot.
func (rm *room) bindHost(l *leg, e uint64) error {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	if rm.closed {
		return errRoomClosed
	}
	if rm.relay.draining.Load() {
		return errDraining
	}
	keyChanged := rm.sealKnown && rm.sealID != l.sealed
	switch {
	case rm.host == nil && rm.hasEpoch && e < rm.epoch:
		return &errEpochStale{epoch: e, current: rm.epoch}
	case rm.host == nil && rm.hasEpoch && e == rm.epoch:
		// Resume: the ring stays; a jump in seq will truncate it. A new
		// key (or sealing turned on or off) makes what the ring holds
		// unreadable to those who may stay: a new generation.
		if keyChanged {
			rm.newGenerationLocked(e)
		}
	case rm.host == nil:
		rm.newGenerationLocked(e)
	case e > rm.epoch:
		old := rm.host
		rm.host = nil
		old.end(&attachwire.ErrorControl{Code: attachwire.CodeEpochStale,
			Message: fmt.Sprintf("superseded by epoch %d", e)}, websocket.StatusPolicyViolation, "epoch-stale")
		rm.newGenerationLocked(e)
	default:
		return &errEpochStale{epoch: e, current: rm.epoch, bound: true}
	}
	rm.host = l
	rm.sealBindLocked(l)
	rm.endUnsealedViewersLocked()
	rm.recordBoundLocked(l.wantsRecord)
	rm.bindInputsLocked(l)
	rm.ring.setHostLost(time.Time{})
	rm.goneTimer.stop()
	// room_state goes to every viewer on every bind, even when the state
	// does not change (a supersede keeps it live but forces a snapshot).
	st := attachwire.RoomLive
	if l.lane != nil {
		st = attachwire.RoomDegraded // the host rides the SSE + POST lane
	}
	if rm.exitSeq != 0 {
		st = attachwire.RoomEnded // a host back for its final-screen window
	}
	rm.setStateLocked(st, true)
	rm.ownedLocked() // a cluster's: after room_state, before the holder's size
	rm.requestSnapshotLocked(attachwire.SnapshotResync)
	rm.pushHolderSizeLocked()
	rm.sendPeopleLocked(l)
	rm.withdrawProposalsLocked()
	return nil
}

// newGenerationLocked starts the stream of epoch e: the ring and the
// sanitizer start afresh, every viewer is forced to a snapshot (their
// cursors are void), and Input queued or kept for the old process is
// dropped. A room's first host has no predecessor: it takes what drivers
// typed before it bound (after a relay restart, the keys typed while the
// host was redialling, which the relay acked).
func (rm *room) newGenerationLocked(e uint64) {
	if rm.hasEpoch {
		rm.drainInputsLocked()
	}
	rm.hasEpoch, rm.epoch = true, e
	rm.ring.reset(e)
	rm.restartHistoryLocked()
	rm.san = newRoomSanitizer()
	rm.exitSeq = 0
	rm.endTimer.stop()
	rm.sent.reset()
}

// drainInputsLocked drops the Input queued for the host: it was meant for
// a process that is gone.
func (rm *room) drainInputsLocked() {
	for {
		select {
		case <-rm.inputs:
		default:
			return
		}
	}
}

// hostLeft unbinds l if it is still the room's host.
func (rm *room) hostLeft(l *leg) {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	if rm.host != l {
		return
	}
	rm.host = nil
	rm.unreplayedLogged = false // a new absence
	now := rm.relay.cfg.Now()
	rm.slideInputsLocked(l, now)
	if rm.exitSeq == 0 && !rm.closed {
		rm.ring.setHostLost(now)
		rm.publishedLocked(outHostLost, uint64(now.UnixNano()), nil)
		rm.setStateLocked(attachwire.RoomHostReconnecting, false)
		rm.goneTimer.stop()
		rm.goneTimer = rm.relay.afterFunc(rm.relay.cfg.HostGoneAfter, rm.hostGone)
	}
}

// hostGone fires HostGoneAfter after the host left (or the room was born):
// the room reports host-gone and closes if nobody is left in it.
func (rm *room) hostGone() {
	rm.mu.Lock()
	if rm.host != nil || rm.exitSeq != 0 || rm.closed || (rm.cl != nil && rm.cl.ownerNode != "") {
		rm.mu.Unlock()
		return
	}
	rm.setStateLocked(attachwire.RoomHostGone, false)
	empty := len(rm.viewers) == 0
	rm.mu.Unlock()
	if empty {
		rm.close(websocket.StatusNormalClosure, "host gone")
	}
}

// setStateLocked moves the room to s and tells every viewer; force sends
// room_state even when s is the current state.
func (rm *room) setStateLocked(s attachwire.RoomStatus, force bool) {
	if s == rm.state && !force {
		return
	}
	rm.state = s
	rm.broadcastLocked(rm.roomStateLocked())
}

func (rm *room) roomStateLocked() attachwire.RoomState {
	rs := attachwire.RoomState{State: rm.state}
	if h := rm.ring.headSeq(); h != 0 {
		rs.SinceSeq = &h
	}
	return rs
}

// broadcastLocked queues c for every viewer, encoded once, and for the
// host leg when c is about the room's people (presence, the pen), which
// the host shows its sharer.
func (rm *room) broadcastLocked(c attachwire.Control) {
	b, err := controlWire(c)
	if err != nil {
		rm.relay.log.Error("relay: encode control", "type", c.ControlType(), "err", err)
		return
	}
	for v := range rm.viewers {
		v.sendWire(b)
	}
	if rm.host != nil && forHost(c) {
		rm.host.sendWire(b)
	}
}

// forHost reports whether a broadcast control goes to the host leg too.
func forHost(c attachwire.Control) bool {
	switch c.(type) {
	case attachwire.Presence, attachwire.PenGranted, attachwire.PenRevoked, attachwire.PenState:
		return true
	}
	return false
}

// requestSnapshotLocked asks the bound host for a snapshot; with no host
// the next bind asks anyway.
func (rm *room) requestSnapshotLocked(reason attachwire.SnapshotReason) {
	if rm.host == nil {
		if rm.cl != nil && rm.cl.ownerNode != "" {
			rm.askOwner(clusterOp{Op: opSnapshot, Reason: string(reason)})
		}
		return
	}
	rm.snapReason = reason
	rm.signalHostLocked()
}

// requestSnapshot is requestSnapshotLocked for viewers, which hold no lock.
func (rm *room) requestSnapshot(reason attachwire.SnapshotReason) {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	rm.requestSnapshotLocked(reason)
}

// signalHostLocked wakes the bound host leg's writer: a control or Input
// is pending. The wake goes to that leg alone, so a superseded writer
// still running never takes it; a writer takes what is pending before
// its first wait, so a wake sent before it was bound is not needed.
func (rm *room) signalHostLocked() {
	if rm.host != nil {
		rm.host.signal()
	}
}

// signalHost is signalHostLocked for callers that do not hold rm.mu.
func (rm *room) signalHost() {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	rm.signalHostLocked()
}

// takeHostControls returns the pending relay→host controls if l is still
// the bound host.
func (rm *room) takeHostControls(l *leg) (snap attachwire.SnapshotReason, rs *attachwire.Resize) {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	if rm.host != l {
		return "", nil
	}
	snap, rs = rm.snapReason, rm.resize
	rm.snapReason, rm.resize = "", nil
	return snap, rs
}

// ingest takes one frame from host leg l into the ring: duplicates (seq at
// or below the head, as after a host's ring-miss replay) are dropped, a
// jump truncates the ring and resets the sanitizer, Output is sanitized
// (an emptied frame is kept so seqs stay contiguous), snapshots are
// validated (a bad one becomes an empty Output frame), Exit ends the room.
// A payload that does not decode is the host's framing error.
func (rm *room) ingest(l *leg, f attachwire.Frame) error {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	if rm.host != l {
		return nil // a superseded leg's last frames
	}
	if f.Seq == 0 {
		return rm.ingestOutOfSeqLocked(f)
	}
	if rm.exitSeq != 0 {
		return nil // nothing seq-bearing follows Exit
	}
	head := rm.ring.headSeq()
	switch {
	case head != 0 && f.Seq <= head:
		return nil
	case head != 0 && f.Seq > head+1:
		rm.relay.log.Info("relay: host stream gap, ring truncated", "room", rm.key.session, "head", head, "seq", f.Seq)
		rm.ring.truncate()
		rm.san.Reset()
		rm.restartHistoryLocked() // a rewind cannot span the gap
		rm.requestSnapshotLocked(attachwire.SnapshotResync)
	}
	check := rm.admitPlainLocked
	if rm.sealID != "" {
		check = rm.admitSealedLocked
	}
	typ, atSeq, payload, err := check(f)
	if err != nil {
		return err
	}
	wire, err := attachwire.Frame{Type: typ, Seq: f.Seq, RelTime: f.RelTime, Payload: payload}.MarshalBinary()
	if err != nil {
		return err
	}
	rm.ring.append(f.Seq, typ, atSeq, wire)
	rm.publishedLocked(outFrame, atSeq, wire)
	rm.historyAddLocked(f.Seq, typ, atSeq, f.RelTime, wire)
	if rm.sealID != "" {
		rm.recordSealedLocked(typ, wire)
	} else {
		rm.recordFrameLocked(typ, payload)
	}
	if typ == attachwire.TypeExit {
		rm.exitSeq = f.Seq
		rm.setStateLocked(attachwire.RoomEnded, false)
		rm.requestSnapshotLocked(attachwire.SnapshotResync)
		rm.goneTimer.stop()
		rm.endTimer = rm.relay.afterFunc(rm.relay.cfg.EndedFor, func() {
			rm.close(websocket.StatusNormalClosure, "room ended")
		})
	}
	return nil
}

// admitPlainLocked readies a plain room's seq-bearing host frame for the
// ring: Output sanitized, a snapshot validated (a bad one becomes an empty
// Output frame at its seq), a Resize's size bounded and given to the
// sanitizer, Markers and Exit decoded. It returns the frame's type, a
// snapshot's atSeq and the payload to keep; an error is the host's framing
// error.
func (rm *room) admitPlainLocked(f attachwire.Frame) (attachwire.FrameType, uint64, []byte, error) {
	switch f.Type {
	case attachwire.TypeOutput:
		return f.Type, 0, rm.san.Append(make([]byte, 0, len(f.Payload)), f.Payload), nil
	case attachwire.TypeSnapshot:
		s, ok := rm.validSnapshotLocked(f.Payload)
		if !ok || s.AtSeq+1 != f.Seq {
			rm.relay.log.Info("relay: host snapshot dropped", "room", rm.key.session, "seq", f.Seq)
			return attachwire.TypeOutput, 0, nil, nil
		}
		return f.Type, s.AtSeq, f.Payload, nil
	case attachwire.TypeResize:
		rs, err := attachwire.DecodeResize(f.Payload)
		if err != nil {
			return 0, 0, nil, err
		}
		if err := rm.relay.cfg.checkSize(rs.Cols, rs.Rows); err != nil {
			return 0, 0, nil, err
		}
		rm.san.SetSize(int(rs.Cols), int(rs.Rows))
	case attachwire.TypeMarker:
		if _, err := attachwire.DecodeMarker(f.Payload); err != nil {
			return 0, 0, nil, err
		}
	case attachwire.TypeExit:
		if _, err := attachwire.DecodeExit(f.Payload); err != nil {
			return 0, 0, nil, err
		}
	}
	return f.Type, 0, f.Payload, nil
}

// ingestOutOfSeqLocked handles a seq-0 host frame: a snapshot before Exit
// is a key frame the history asked for; the post-Exit snapshot is cached
// for late joiners; anything else out of namespace is ignored.
func (rm *room) ingestOutOfSeqLocked(f attachwire.Frame) error {
	if f.Type == attachwire.TypeSnapshot && rm.exitSeq == 0 {
		rm.historyKeyframeLocked(f.Payload)
		return nil
	}
	if f.Type != attachwire.TypeSnapshot || rm.exitSeq == 0 {
		return nil
	}
	s, ok := rm.snapshotCheckLocked()(f.Payload)
	if !ok || s.AtSeq != rm.exitSeq {
		return nil
	}
	wire, err := attachwire.Frame{Type: attachwire.TypeSnapshot, Payload: f.Payload}.MarshalBinary()
	if err != nil {
		return err
	}
	rm.ring.setFinal(wire)
	rm.publishFinalLocked(wire)
	return nil
}

// validSnapshotLocked decodes a Snapshot payload and its screen; a screen
// of another epoch is as bad as one that does not decode.
func (rm *room) validSnapshotLocked(p []byte) (attachwire.Snapshot, bool) {
	s, err := attachwire.DecodeSnapshot(p)
	if err != nil || s.Format != attachwire.FormatScreenV1 {
		return s, false
	}
	scr, err := attachwire.DecodeScreen(s.Screen)
	if err != nil || scr.Epoch != rm.epoch || rm.relay.cfg.checkSize(uint32(scr.Cols), uint32(scr.Rows)) != nil {
		return s, false
	}
	return s, true
}

// addViewer admits a driver or viewer leg: it is told the room's state
// and the pen, and with the room's next presence update who is here,
// while everyone else is told it joined (presence.go). A driver
// joining while the pen is free takes it; the same jti back within the
// grace keeps it.
func (rm *room) addViewer(l *leg) error {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	return rm.addViewerLocked(l)
}

// addViewerLocked is addViewer with rm.mu held.
func (rm *room) addViewerLocked(l *leg) error {
	if rm.closed {
		return errRoomClosed
	}
	if rm.relay.draining.Load() {
		return errDraining
	}
	if len(rm.viewers) >= rm.relay.cfg.MaxViewersPerRoom {
		return errRoomFull
	}
	if err := rm.sealCheckLocked(l); err != nil {
		return err
	}
	if l.remote == nil && rm.relay.isKicked(rm.key, l.jti) {
		return errKicked
	}
	rm.viewers[l] = struct{}{}
	rm.recordPresenceLocked("join", l)
	l.send(rm.roomStateLocked())
	rm.presenceJoinLocked(l)
	rm.penJoinLocked(l)
	rm.sendPendingLocked(l)
	return nil
}

// removeViewer takes a leg out of the room: its leave in the next
// presence update, and the pen's
// grace if it held it. The last viewer leaving a host-gone room closes it.
func (rm *room) removeViewer(l *leg) {
	rm.mu.Lock()
	if _, ok := rm.viewers[l]; !ok {
		rm.mu.Unlock()
		return
	}
	delete(rm.viewers, l)
	rm.recordPresenceLocked("leave", l)
	var closeNow bool
	if l.clusterID() != "" {
		closeNow = rm.leaveMirrorLocked(l)
	} else {
		rm.presenceLeaveLocked(l)
		rm.penLeaveLocked(l)
		closeNow = rm.state == attachwire.RoomHostGone && len(rm.viewers) == 0 && rm.host == nil
	}
	rm.mu.Unlock()
	if closeNow {
		rm.close(websocket.StatusNormalClosure, "host gone")
	}
}

// close ends the room: every leg is closed with code and reason and the
// relay forgets the room.
func (rm *room) close(code websocket.StatusCode, reason string) {
	rm.mu.Lock()
	if rm.closed {
		rm.mu.Unlock()
		return
	}
	rm.closed = true
	rm.stopHistoryLocked()
	rm.recordClosedLocked()
	rm.goneTimer.stop()
	rm.endTimer.stop()
	rm.pen.grace.stop()
	rm.pres.timer.stop()
	legs := make([]*leg, 0, len(rm.viewers)+1)
	for v := range rm.viewers {
		legs = append(legs, v)
	}
	if rm.host != nil {
		legs = append(legs, rm.host)
	}
	rm.mu.Unlock()
	for _, l := range legs {
		l.end(nil, code, reason)
	}
	rm.closedCluster()
	rm.relay.forget(rm)
}

// announceRestart is the room's part of a planned restart: the host gets
// error relay-restarting then 1012; viewers get room_state
// host-reconnecting then 1012, and resume on the next relay.
func (rm *room) announceRestart(after time.Duration) {
	msg, reason := attachwire.FormatRedialAfter(after), attachwire.RestartCloseReason(after)
	rm.mu.Lock()
	defer rm.mu.Unlock()
	if rm.host != nil {
		rm.host.end(&attachwire.ErrorControl{Code: attachwire.CodeRelayRestarting, Message: msg, Retryable: true},
			websocket.StatusServiceRestart, reason)
	}
	st, _ := controlWire(attachwire.RoomState{State: attachwire.RoomHostReconnecting})
	for v := range rm.viewers {
		v.sendWire(st)
		if v.remote == nil {
			// A member for another node's leg is not ended: that leg
			// stays where it is and follows the node its host redials.
			v.end(nil, websocket.StatusServiceRestart, reason)
		}
	}
}

// resizeFrom records a leg's viewport; the pen holder's is sent to the host,
// clamped to the relay's limits.
func (rm *room) resizeFrom(l *leg, rs attachwire.Resize) {
	if l.forwardRemote(clusterOp{Op: opResize, Cols: rs.Cols, Rows: rs.Rows}) {
		l.mu.Lock()
		l.viewport = &attachwire.Viewport{Cols: rs.Cols, Rows: rs.Rows}
		l.mu.Unlock()
		return
	}
	rm.mu.Lock()
	defer rm.mu.Unlock()
	l.mu.Lock()
	l.viewport = &attachwire.Viewport{Cols: rs.Cols, Rows: rs.Rows}
	l.mu.Unlock()
	if rm.pen.holder == l {
		rm.pushHolderSizeLocked()
	}
}

// pushHolderSizeLocked queues the pen holder's viewport for the host.
func (rm *room) pushHolderSizeLocked() {
	h := rm.pen.holder
	if h == nil {
		return
	}
	h.mu.Lock()
	vp := h.viewport
	h.mu.Unlock()
	if vp == nil || vp.Cols == 0 || vp.Rows == 0 {
		return
	}
	cfg := &rm.relay.cfg
	rm.resize = &attachwire.Resize{Cols: min(vp.Cols, cfg.MaxCols), Rows: min(vp.Rows, cfg.MaxRows)}
	rm.signalHostLocked()
}

// timer is a time.AfterFunc the relay can join: stop or the callback
// (exactly one of them) releases the relay's count. A nil timer (none was
// scheduled because the relay is closing) stops as a no-op.
type timer struct {
	t  *time.Timer
	rl *Relay
}

func (t *timer) stop() {
	if t == nil || !t.t.Stop() {
		return
	}
	t.rl.timersMu.Lock()
	delete(t.rl.pending, t)
	t.rl.timersMu.Unlock()
	t.rl.timers.Done()
}

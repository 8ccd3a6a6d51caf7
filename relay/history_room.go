package relay

import (
	"path/filepath"

	"github.com/ptyhost/ptyhost/attachwire"
)

// restartHistoryLocked ends the room's history and, with a history
// directory configured, starts a new one: a new generation, or a gap in
// the host's stream, begins a stream a rewind cannot reach across.
func (rm *room) restartHistoryLocked() {
	rm.stopHistoryLocked()
	cfg := rm.relay.cfg
	if cfg.HistoryDir == "" || rm.closed {
		return
	}
	h, err := newHistory(filepath.Join(cfg.HistoryDir, "rooms"), cfg.HistoryBytes, cfg.KeyframeBytes, rm.relay.log, &rm.relay.histories)
	if err != nil {
		rm.relay.log.Warn("relay: room history not kept", "room", rm.key.session, "err", err)
		return
	}
	rm.hist = h
}

// stopHistoryLocked ends the room's history; its writer removes its files
// once it has drained.
func (rm *room) stopHistoryLocked() {
	if rm.hist != nil {
		rm.hist.stop()
		rm.hist = nil
	}
}

// historyAddLocked files a frame the ring took and, when the history has
// gone KeyframeBytes of output without a key frame, asks the host for one
// (unless another snapshot is already asked for, which serves as well).
func (rm *room) historyAddLocked(seq uint64, typ attachwire.FrameType, atSeq, rel uint64, wire []byte) {
	if rm.hist == nil {
		return
	}
	if rm.hist.add(seq, typ, atSeq, rel, wire) {
		if rm.snapReason == "" && rm.host != nil {
			rm.requestSnapshotLocked(attachwire.SnapshotKeyframe)
		} else {
			rm.hist.keyAnswered()
		}
	}
}

// historyKeyframeLocked files a seq-0 snapshot a host sent before Exit: a
// key frame, which goes to no viewer. One that does not fit the room (its
// epoch, its size) is dropped. It may overtake frames at or below its
// atSeq still on their way: the history files it by atSeq.
func (rm *room) historyKeyframeLocked(payload []byte) {
	if rm.hist == nil {
		return
	}
	s, ok := rm.snapshotCheckLocked()(payload)
	if !ok {
		return
	}
	wire, err := attachwire.Frame{Type: attachwire.TypeSnapshot, Payload: payload}.MarshalBinary()
	if err != nil {
		return
	}
	rm.hist.addKeyframe(s.AtSeq, wire)
}

package relay

import (
	"errors"
	"io"
	"net/http"
	"strconv"

	"github.com/ptyhost/ptyhost/attachwire"
)

// serveHostSSE is the host leg's SSE-down (GET …/host/sse). The checks, in
// order: draining (503 + Retry-After), the dial rate (429), the attach
// token from the Authorization header only (401), a host token for this
// room (403), ?epoch=, if given, equal to the claim (400: the claim is
// what counts, never the query), the jti (401: reused by another identity,
// or live on another leg, WebSocket or lane), the room limit (429) and
// the epoch CAS (409, as epoch-stale). The 200 means the leg is bound; the
// stream then carries what a WebSocket host leg gets (stamped Input,
// Resize, snapshot_request, errors), all seq 0, and ": heartbeat"
// comments. Viewers see room_state degraded while a lane host is bound.
func (rl *Relay) serveHostSSE(w http.ResponseWriter, r *http.Request) {
	if !rl.laneGate(w, r) {
		return
	}
	c, ok := rl.headerClaims(w, r)
	if !ok || !rl.laneRoom(w, r, c, true, "host/sse needs a host token") {
		return
	}
	if q := r.URL.Query().Get("epoch"); q != "" {
		if e, err := strconv.ParseUint(q, 10, 64); err != nil || e != *c.Epoch {
			rl.refuse(w, http.StatusBadRequest, "epoch", "epoch differs from the token's")
			return
		}
	}
	log := rl.log.With("org", c.OrgID, "room", c.RoomID, "role", string(c.Role), "carrier", "lane")
	dedupAll := declaresDedup(r)
	rl.admitLane(w, r, c, log, laneBinding{
		bind: func(rm *room, l *leg) error {
			l.dedupAll = dedupAll // before the bind: it picks what is replayed
			err := rm.bindHost(l, *c.Epoch)
			if err == nil && dedupAll {
				w.Header().Set(attachwire.InputDedupHeader, attachwire.InputDedupAnyCarrier)
			}
			return err
		},
		refused: func(err error) bool {
			var stale *errEpochStale
			if !errors.As(err, &stale) {
				return false
			}
			rl.refuse(w, http.StatusConflict, string(attachwire.CodeEpochStale),
				"epoch "+strconv.FormatUint(stale.epoch, 10)+" is stale")
			return true
		},
		writer: (*leg).hostWriter,
		left:   func(l *leg) { l.room.hostLeft(l) },
	})
}

// laneBodyLimit bounds a POST body: base64 costs 4/3 of each frame, and a
// batch may hold several frames up to the leg's read limit.
func laneBodyLimit(readLimit int64) int64 { return 2*readLimit + 64<<10 }

// laneBatch is the start every lane POST shares: the attach token from the
// Authorization header (401), the live lane leg of its jti in this room
// (410; a host's leg where host is set), the body within the leg's
// readLimit (413, or 400 when unreadable) and parse's batch (400). It
// reports false when it answered.
func laneBatch[B any](rl *Relay, w http.ResponseWriter, r *http.Request, host bool, readLimit int64, parse func([]byte) (B, error)) (*laneLeg, B, bool) {
	var none B
	c, ok := rl.headerClaims(w, r)
	if !ok {
		return nil, none, false
	}
	ll := rl.lane.find(c, r.PathValue("room"), host)
	if ll == nil {
		rl.errNoLaneLeg(w)
		return nil, none, false
	}
	body, ok := readBatch(w, r, laneBodyLimit(readLimit))
	if !ok {
		return nil, none, false
	}
	p, err := parse(body)
	if err != nil {
		rl.refuse(w, http.StatusBadRequest, "batch", err.Error())
		return nil, none, false
	}
	return ll, p, true
}

// readBatch reads a POST body within limit; it reports false when it
// answered (413 for an oversized body).
func readBatch(w http.ResponseWriter, r *http.Request, limit int64) ([]byte, bool) {
	b, err := io.ReadAll(http.MaxBytesReader(w, r.Body, limit))
	if err != nil {
		var mbe *http.MaxBytesError
		if errors.As(err, &mbe) {
			http.Error(w, "batch too large", http.StatusRequestEntityTooLarge)
		} else {
			http.Error(w, "cannot read the batch", http.StatusBadRequest)
		}
		return nil, false
	}
	return b, true
}

// errNoLaneLeg answers a POST whose token has no live lane leg (never
// opened, closed, or superseded): 410, so the client reopens its SSE leg
// rather than re-minting or rewinding.
func (rl *Relay) errNoLaneLeg(w http.ResponseWriter) {
	rl.refuse(w, http.StatusGone, "lane", "no live SSE leg for this token id")
}

// laneHead returns the room's head seq and whether l is still its bound
// host, both under the room's lock.
func (rm *room) laneHead(l *leg) (uint64, bool) {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	return rm.ring.headSeq(), rm.host == l && !l.isEnding()
}

func (l *leg) isEnding() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.ending
}

// serveHostOutput is the host leg's POST-up (POST …/host/output, a
// HostBatch). The token (Authorization header, 401) must carry the jti of
// a live host SSE leg in this room (410). A malformed batch is 400 and
// nothing of it is applied. Then, under the leg's lock:
//
//   - a batchId answered before gets the same 200 again;
//   - frames starting past head+1 open a gap: 409 {ackSeq: head}, nothing
//     applied, the batchId not consumed, unless gapFrom == firstSeq, which
//     is accepted as a mid-epoch gap (the ring is truncated, viewers skip
//     to a snapshot, the host gets snapshot_request resync); a room that
//     holds nothing of the epoch yet (head 0) takes any firstSeq, like a
//     WebSocket host's first frame;
//   - frames at or below the head are dropped (idempotency by seq), the
//     rest go through room.ingest as on WebSocket;
//   - outOfSeq follows: the host's subscribe (checked against the token:
//     400 or 403), error controls (logged), post-Exit Snapshots;
//   - 200 {ackSeq}: lastSeq when frames were accepted, else the head.
func (rl *Relay) serveHostOutput(w http.ResponseWriter, r *http.Request) {
	ll, p, ok := laneBatch(rl, w, r, true, rl.cfg.HostReadLimit, attachwire.ParseHostBatch)
	if !ok {
		return
	}
	ll.mu.Lock()
	defer ll.mu.Unlock()
	if a, ok := ll.answers[p.BatchID]; ok {
		writeJSON(w, http.StatusOK, attachwire.HostBatchAnswer{BatchID: p.BatchID, AckSeq: a.ack})
		return
	}
	l := ll.leg
	rm := l.room
	head, bound := rm.laneHead(l)
	if !bound {
		rl.errNoLaneLeg(w)
		return
	}
	if len(p.SeqFrames) > 0 && head != 0 && p.FirstSeq > head+1 {
		if p.GapFrom == nil || *p.GapFrom != p.FirstSeq {
			rl.metrics.refusals.WithLabelValues("lane-gap").Inc()
			writeJSON(w, http.StatusConflict, attachwire.HostBatchAnswer{BatchID: p.BatchID, AckSeq: head})
			return
		}
		l.log.Info("relay: lane host declared a gap", "head", head, "gapFrom", p.FirstSeq)
	}
	in := rl.metrics.framesIn.WithLabelValues(string(l.role))
	for _, f := range p.SeqFrames {
		in.Inc()
		if err := rm.ingest(l, f); err != nil {
			rl.refuse(w, http.StatusBadRequest, "framing", attachwire.CapMessage(err.Error()))
			return
		}
	}
	for _, f := range p.OutOfSeqFrames {
		in.Inc()
		if f.Type == attachwire.TypeSnapshot {
			if err := rm.ingest(l, f); err != nil {
				rl.refuse(w, http.StatusBadRequest, "framing", attachwire.CapMessage(err.Error()))
				return
			}
			continue
		}
		ctl, err := attachwire.DecodeControl(f.Payload)
		switch ctl := ctl.(type) {
		case attachwire.Subscribe:
			wire, _ := f.MarshalBinary()
			if _, a := parseSubscribe(wire, ll.claims); a != nil {
				status := http.StatusForbidden
				if a.code == attachwire.CodeFraming {
					status = http.StatusBadRequest
				}
				rl.refuse(w, status, string(a.code), a.msg)
				return
			}
		case attachwire.ErrorControl:
			l.log.Info("relay: host reported an error", "code", ctl.Code)
		case attachwire.Kick, attachwire.PenTake, attachwire.ReadOnly:
			rm.hostControl(l, ctl)
		default:
			if err != nil && isFraming(err) {
				rl.refuse(w, http.StatusBadRequest, "framing", attachwire.CapMessage(err.Error()))
				return
			}
		}
	}
	ack := head
	if len(p.SeqFrames) > 0 {
		ack = max(head, p.LastSeq)
	}
	ll.remember(p.BatchID, batchAnswer{ack: ack})
	writeJSON(w, http.StatusOK, attachwire.HostBatchAnswer{BatchID: p.BatchID, AckSeq: ack})
}

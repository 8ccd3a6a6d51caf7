package relay

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/token"
)

// serveViewerSSE is a driver's or viewer's SSE-down (GET …/sse). The
// credential is the attach token in the Authorization header or, for a
// browser, ?ticket= (see serveTicket): its signature and claims are
// checked, then its tid is burned at once, before anything touches a room,
// so a ticket refused later for any reason stays spent. Then, as for a
// WebSocket viewer: the Origin (403), a driver or viewer token for this
// room (403), the jti (401: one live leg per jti, whatever the carrier),
// the room's limits (429) and ?resume_from=&epoch= (absent or "null" is
// null ≡ 0; 400 when not a number). The leg joins as its token's role.
func (rl *Relay) serveViewerSSE(w http.ResponseWriter, r *http.Request) {
	if !rl.viewerGate(w, r) {
		return
	}
	c, ok := rl.viewerCredential(w, r)
	if !ok || !rl.laneRoom(w, r, c, false, "hosts use host/sse") {
		return
	}
	q := r.URL.Query()
	after, ok1 := optionalSeq(q.Get("resume_from"))
	epoch, ok2 := optionalSeq(q.Get("epoch"))
	if !ok1 || !ok2 {
		rl.refuse(w, http.StatusBadRequest, "resume", "resume_from and epoch are unsigned integers")
		return
	}
	log := rl.log.With("org", c.OrgID, "room", c.RoomID, "role", string(c.Role), "user", c.UserID, "carrier", "lane")
	rl.admitLane(w, r, c, log, laneBinding{
		bind: (*room).join,
		refused: func(err error) bool {
			if errors.Is(err, errKicked) {
				rl.refuse(w, http.StatusUnauthorized, string(attachwire.CodeAuth), msgKicked)
				return true
			}
			if !errors.Is(err, errRoomFull) {
				return false
			}
			w.Header().Set("Retry-After", "1")
			rl.refuse(w, http.StatusTooManyRequests, string(attachwire.CodeRateLimited), "room is full")
			return true
		},
		writer: func(l *leg) { l.viewerWriter(resumeRequest{after: after, epoch: epoch}) },
		left:   func(l *leg) { l.room.removeViewer(l) },
	})
}

// viewerCredential returns the claims of a viewer SSE leg: from the
// Authorization header if there is one, else from ?ticket=, whose tid it
// burns. It reports false when it answered (401).
func (rl *Relay) viewerCredential(w http.ResponseWriter, r *http.Request) (token.Claims, bool) {
	if r.Header.Get("Authorization") != "" {
		return rl.headerClaims(w, r)
	}
	raw := r.URL.Query().Get("ticket")
	if raw == "" {
		rl.refuse(w, http.StatusUnauthorized, "auth", "attach token or ticket required")
		return token.Claims{}, false
	}
	t, err := rl.lane.ticketVerifier.VerifySSETicket(raw)
	if err != nil {
		rl.log.Info("relay: ticket refused", "path", r.URL.Path, "err", err)
		rl.refuse(w, http.StatusUnauthorized, "auth", "invalid ticket")
		return token.Claims{}, false
	}
	if !rl.lane.burnTID(t.TID, time.Unix(t.ExpiresAt, 0), rl.cfg.Now()) {
		rl.refuse(w, http.StatusUnauthorized, "auth", "ticket already used")
		return token.Claims{}, false
	}
	return t.Claims(), true
}

// optionalSeq parses an optional unsigned query value: "" and "null" are
// nil.
func optionalSeq(s string) (*uint64, bool) {
	if s == "" || s == "null" {
		return nil, true
	}
	v, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		return nil, false
	}
	return &v, true
}

// laneViewer returns the connection's last consumed inputSeq and whether
// l is still in its room.
func (rm *room) laneViewer(l *leg) (uint64, bool) {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	_, in := rm.viewers[l]
	return rm.acks[l.jti], in && !l.isEnding()
}

// laneAcked records seq as consumed for lane leg l, whose Input went to
// the room's owner, and returns the connection's ack.
func (rm *room) laneAcked(l *leg, seq uint64) uint64 {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	if seq > rm.acks[l.jti] {
		rm.acks[l.jti] = seq
	}
	return rm.acks[l.jti]
}

// serveViewerInput is a driver's or viewer's POST-up (POST …/input, a
// ViewerBatch). The attach token (Authorization header, 401) must carry
// the jti of a live viewer SSE leg in this room (410); a malformed batch
// is 400 and nothing of it is applied. Then, under the leg's lock:
//
//   - a batchId answered before gets the same 200 again;
//   - inputs starting past ack+1 are a gap: 409 {ackInputSeq}, nothing
//     applied, the batchId not consumed;
//   - the controls run in order (grab, release, resume_from, and Resize
//     frames: the viewport), once per batchId;
//   - each input past the ack is admitted as on WebSocket (the pen, the
//     relay's stamp) and queued for the host; inputs at or below the ack
//     are dropped (idempotency by (connection, inputSeq));
//   - the host's input queue full: 429 with Retry-After; the inputs
//     queued so far stay consumed, and a retry of the batch resumes after
//     them;
//   - 200 {ackInputSeq}.
func (rl *Relay) serveViewerInput(w http.ResponseWriter, r *http.Request) {
	ll, p, ok := laneBatch(rl, w, r, false, rl.cfg.ViewerReadLimit, attachwire.ParseViewerBatch)
	if !ok {
		return
	}
	ll.mu.Lock()
	defer ll.mu.Unlock()
	if a, ok := ll.answers[p.BatchID]; ok {
		writeJSON(w, http.StatusOK, attachwire.ViewerBatchAnswer{BatchID: p.BatchID, AckInputSeq: a.ack})
		return
	}
	l := ll.leg
	rm := l.room
	last, live := rm.laneViewer(l)
	if !live {
		rl.errNoLaneLeg(w)
		return
	}
	if len(p.InputPayloads) > 0 && *p.FirstInputSeq > last+1 {
		rl.metrics.refusals.WithLabelValues("lane-gap").Inc()
		writeJSON(w, http.StatusConflict, attachwire.ViewerBatchAnswer{BatchID: p.BatchID, AckInputSeq: last})
		return
	}
	in := rl.metrics.framesIn.WithLabelValues(string(l.role))
	if ll.ctlDone != p.BatchID {
		for _, f := range p.ControlFrames {
			in.Inc()
			if !l.viewerFrame(f) {
				rl.errNoLaneLeg(w) // a framing error ended the leg
				return
			}
		}
		ll.ctlDone = p.BatchID
	}
	for _, input := range p.InputPayloads {
		if input.InputSeq <= last {
			continue
		}
		in.Inc()
		v := rm.admitInput(l, input)
		if v.remote {
			// Once the owner has it, it is consumed here (a refusal by
			// the owner's pen reaches the driver from the owner).
			if !l.inputRemote(input) {
				rl.errNoLaneLeg(w)
				return
			}
			last = rm.laneAcked(l, input.InputSeq)
			continue
		}
		if v.forward != nil {
			select {
			case rm.inputs <- v.forward:
				rl.metrics.inputsForwarded.Inc()
				rm.signalHost()
			default:
				rm.consumedInput(l, v, false)
				rl.metrics.backpressure.Inc()
				w.Header().Set("Retry-After", "1")
				rl.refuse(w, http.StatusTooManyRequests, "backpressure", "host input queue full")
				return
			}
		} else {
			rl.metrics.inputsDropped.Inc()
		}
		rm.consumedInput(l, v, true)
		if v.next {
			last = v.ack
		}
		if v.revoked {
			rm.refusedInput(l)
		}
	}
	ll.ctlDone = ""
	ll.remember(p.BatchID, batchAnswer{ack: last})
	writeJSON(w, http.StatusOK, attachwire.ViewerBatchAnswer{BatchID: p.BatchID, AckInputSeq: last})
}

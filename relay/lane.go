package relay

import (
	"context"
	"crypto/ed25519"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"sync"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/token"
)

// The degraded lane (docs/protocol.md §7): for clients whose path breaks
// WebSocket, a leg is an SSE stream down (GET) plus batched POSTs up, both
// presenting the same jti: one logical connection, admitted once, live
// while its SSE stream is open. The SSE stream's handler owns the leg just
// as a WebSocket handler does; a POST finds the leg by its token's jti and
// feeds the room through the same methods a WebSocket reader calls.
//
//	GET  /v1/rooms/<id>/host/sse      host SSE-down (header token only)
//	POST /v1/rooms/<id>/host/output   host POST-up (HostBatch)
//	GET  /v1/rooms/<id>/sse           viewer SSE-down (header or ?ticket=)
//	POST /v1/rooms/<id>/input         viewer POST-up (ViewerBatch)
//	POST /v1/rooms/<id>/sse-ticket    a browser trades its attach token for a ticket

// TicketTTL is how long the tickets the relay mints live: a browser
// uses one at once, and a ticket travels in a URL.
const TicketTTL = 30 * time.Second

// maxRememberedBatches bounds the batchIds a lane leg remembers for
// idempotent replays. A client retries only its latest batches, so the
// oldest are forgotten first.
const maxRememberedBatches = 256

// laneState is the relay's lane bookkeeping: the live lane legs by jti,
// the tid store (kept apart from the jti store, as §15 d5 asks) and the
// relay's own ticket key.
type laneState struct {
	// ticketKey signs the tickets the relay mints. It is generated at
	// start, never leaves memory and is trusted only by this relay's
	// ticketVerifier (with the platform keys, so a platform-minted ticket
	// is accepted too).
	ticketKey      ed25519.PrivateKey
	ticketVerifier *token.Verifier

	mu   sync.Mutex
	legs map[string]*laneLeg  // jti → the live lane leg
	tids map[string]time.Time // burned tid → its ticket's exp
}

// laneLeg is a live lane leg and the state its POSTs share: the claims it
// was admitted with, the batches already answered, and one lock so the
// leg's POSTs apply one at a time, in the order they arrive.
type laneLeg struct {
	leg    *leg
	claims token.Claims

	mu      sync.Mutex
	answers map[string]batchAnswer // batchId → the 200 it got
	order   []string               // answers' keys, oldest first
	ctlDone string                 // batchId whose controls ran before a 429
}

// batchAnswer is a remembered 200: a replay gets it again.
type batchAnswer struct{ ack uint64 }

func (ll *laneLeg) remember(id string, a batchAnswer) {
	if _, ok := ll.answers[id]; ok {
		return
	}
	ll.answers[id] = a
	ll.order = append(ll.order, id)
	if len(ll.order) > maxRememberedBatches {
		delete(ll.answers, ll.order[0])
		ll.order = ll.order[1:]
	}
}

// routeLane generates the ticket key and mounts the lane's endpoints.
func (rl *Relay) routeLane() error {
	pub, priv, err := token.GenerateKey()
	if err != nil {
		return fmt.Errorf("relay: ticket key: %w", err)
	}
	keys := append([]ed25519.PublicKey{pub}, rl.cfg.PublicKeys...)
	v, err := token.NewVerifier(keys, token.VerifierOptions{Leeway: 5 * time.Second, Now: rl.cfg.Now})
	if err != nil {
		return fmt.Errorf("relay: %w", err)
	}
	rl.lane = &laneState{ticketKey: priv, ticketVerifier: v,
		legs: make(map[string]*laneLeg), tids: make(map[string]time.Time)}
	rl.mux.HandleFunc("GET /v1/rooms/{room}/host/sse", rl.serveHostSSE)
	rl.mux.HandleFunc("POST /v1/rooms/{room}/host/output", rl.serveHostOutput)
	rl.mux.HandleFunc("GET /v1/rooms/{room}/sse", rl.serveViewerSSE)
	rl.mux.HandleFunc("POST /v1/rooms/{room}/input", rl.serveViewerInput)
	rl.mux.HandleFunc("POST /v1/rooms/{room}/sse-ticket", rl.serveTicket)
	return nil
}

// burnTID consumes a ticket id; it reports false if it was burned before.
// Burned ids are kept until their ticket expires (plus the leeway), after
// which the ticket is refused as expired anyway.
func (ls *laneState) burnTID(tid string, exp time.Time, now time.Time) bool {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if len(ls.tids) > 4096 {
		for k, e := range ls.tids {
			if now.After(e.Add(token.MaxLeeway)) {
				delete(ls.tids, k)
			}
		}
	}
	if _, ok := ls.tids[tid]; ok {
		return false
	}
	ls.tids[tid] = exp
	return true
}

func (ls *laneState) add(ll *laneLeg) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	ls.legs[ll.claims.JTI] = ll
}

func (ls *laneState) remove(ll *laneLeg) {
	ls.mu.Lock()
	defer ls.mu.Unlock()
	if ls.legs[ll.claims.JTI] == ll {
		delete(ls.legs, ll.claims.JTI)
	}
}

// find returns the live lane leg a POST's token belongs to: same jti, same
// identity, same room, and of the role the endpoint serves.
func (ls *laneState) find(c token.Claims, roomID string, host bool) *laneLeg {
	ls.mu.Lock()
	ll := ls.legs[c.JTI]
	ls.mu.Unlock()
	if ll == nil || identityOf(ll.claims) != identityOf(c) || ll.claims.RoomID != roomID ||
		(ll.leg.role == attachwire.RoleHost) != host {
		return nil
	}
	return ll
}

// sseStream is the SSE response of a lane leg. The leg's writer and its
// heartbeat both write, under mu; every write has the relay's write
// timeout, so a client that stops reading ends its leg.
type sseStream struct {
	mu      sync.Mutex
	w       http.ResponseWriter
	rc      *http.ResponseController
	timeout time.Duration
	buf     []byte
}

func newSSEStream(w http.ResponseWriter, timeout time.Duration) *sseStream {
	return &sseStream{w: w, rc: http.NewResponseController(w), timeout: timeout}
}

// start sends the 200 and the headers: this is the moment the leg is bound.
func (s *sseStream) start() error {
	s.mu.Lock()
	defer s.mu.Unlock()
	h := s.w.Header()
	h.Set("Content-Type", "text/event-stream")
	h.Set("Cache-Control", "no-store")
	h.Set("X-Accel-Buffering", "no") // proxies that buffer would hold the stream back
	s.w.WriteHeader(http.StatusOK)
	return s.flushLocked()
}

// frame writes one frame as one event: "event: frame", then the frame in
// standard base64 on one data line.
func (s *sseStream) frame(b []byte) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf = attachwire.AppendSSEFrame(s.buf[:0], b)
	return s.writeLocked(s.buf)
}

// comment writes an SSE comment line (": heartbeat"), which clients ignore
// and proxies see as traffic.
func (s *sseStream) comment(text string) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.buf = attachwire.AppendSSEComment(s.buf[:0], text)
	return s.writeLocked(s.buf)
}

func (s *sseStream) writeLocked(b []byte) error {
	s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	if _, err := s.w.Write(b); err != nil {
		return err
	}
	return s.flushLocked()
}

func (s *sseStream) flushLocked() error {
	s.rc.SetWriteDeadline(time.Now().Add(s.timeout))
	return s.rc.Flush()
}

// laneWrite is leg.write for a lane leg.
func (l *leg) laneWrite(b []byte) error {
	if err := l.lane.frame(b); err != nil {
		return err
	}
	l.relay.metrics.framesOut.WithLabelValues(string(l.role)).Inc()
	l.relay.metrics.bytesOut.WithLabelValues(string(l.role)).Add(float64(len(b)))
	return nil
}

// laneFinish is leg.finish for a lane leg: the final error control, if
// any, as the stream's last event; the handler's return ends the response.
func (l *leg) laneFinish(ctl *attachwire.ErrorControl) {
	if ctl == nil || l.ctx.Err() != nil {
		return
	}
	if b, err := controlWire(*ctl); err == nil {
		l.laneWrite(b)
	}
}

// heartbeat writes ": heartbeat" every SSEHeartbeat until the leg ends; a
// failed write ends the leg.
func (l *leg) heartbeat() {
	t := time.NewTicker(l.relay.cfg.SSEHeartbeat)
	defer t.Stop()
	for l.tick(t) {
		if err := l.lane.comment(attachwire.SSEHeartbeat); err != nil {
			l.end(nil, 0, "")
			l.cancel()
			return
		}
	}
}

// laneGate runs the checks every lane GET shares with a WebSocket dial
// before the credential: draining (503 + Retry-After) and the dial rate
// (429 + Retry-After). It reports false when it answered.
func (rl *Relay) laneGate(w http.ResponseWriter, r *http.Request) bool {
	return rl.gate(w, r, rl.limiter, "too many dials")
}

// gate answers 503 + Retry-After while draining and 429 past lim's rate
// for the client's address (tooMany says which rate), and reports false
// when it answered.
func (rl *Relay) gate(w http.ResponseWriter, r *http.Request, lim *dialLimiter, tooMany string) bool {
	if rl.draining.Load() {
		w.Header().Set("Retry-After", attachwire.FormatRetryAfter(rl.restartAfter()))
		rl.refuse(w, http.StatusServiceUnavailable, "draining", "relay restarting")
		return false
	}
	if !lim.allow(clientAddr(r)) {
		w.Header().Set("Retry-After", "1")
		rl.refuse(w, http.StatusTooManyRequests, "rate", tooMany)
		return false
	}
	return true
}

// viewerGate is laneGate, then the Origin check (403) that the routes a
// browser reaches (a viewer's SSE leg, its ticket) add. It reports false
// when it answered.
func (rl *Relay) viewerGate(w http.ResponseWriter, r *http.Request) bool {
	return rl.laneGate(w, r) && rl.originGate(w, r)
}

// originGate answers 403 to a browser origin the relay does not allow.
func (rl *Relay) originGate(w http.ResponseWriter, r *http.Request) bool {
	if !rl.originAllowed(r) {
		rl.refuse(w, http.StatusForbidden, "origin", "origin not allowed")
		return false
	}
	return true
}

// laneRoom checks c against the route: first its role (a host token where
// host is set, any other where it is not; 403 with wrongRole), then the
// room in the path (403 room_mismatch). It reports false when it answered.
func (rl *Relay) laneRoom(w http.ResponseWriter, r *http.Request, c token.Claims, host bool, wrongRole string) bool {
	switch {
	case (c.Role == attachwire.RoleHost) != host:
		rl.refuse(w, http.StatusForbidden, "auth", wrongRole)
		return false
	case c.RoomID != r.PathValue("room"):
		rl.refuse(w, http.StatusForbidden, string(attachwire.CodeRoomMismatch), "token is for another room")
		return false
	}
	return true
}

// laneBinding is what differs between a host's and a viewer's SSE leg once
// its token has passed: how the leg joins a room, the refusals of that
// join the two do not share, and how the leg runs and leaves.
type laneBinding struct {
	// bind joins l to rm. errRoomClosed makes admitLane try a fresh room;
	// errDraining is 503.
	bind func(rm *room, l *leg) error
	// refused answers any other error of bind and reports whether it did;
	// an error it leaves unanswered does not stop the leg.
	refused func(err error) bool
	// writer and left are runLane's, for the leg admitLane built.
	writer, left func(l *leg)
}

// admitLane admits an SSE leg for c after its route's checks: the jti
// (401: one live leg per jti, whatever the carrier), the room limit (429),
// b.bind and its refusals; then runLane drives the leg, owning the jti.
func (rl *Relay) admitLane(w http.ResponseWriter, r *http.Request, c token.Claims, log *slog.Logger, b laneBinding) {
	if a := rl.takeJTI(c); a != nil {
		rl.refuse(w, http.StatusUnauthorized, "auth", a.msg)
		return
	}
	ownJTI := true // until runLane takes it over
	defer func() {
		if ownJTI {
			rl.releaseJTI(c.JTI)
		}
	}()
	if !rl.addLeg() {
		w.Header().Set("Retry-After", attachwire.FormatRetryAfter(rl.restartAfter()))
		http.Error(w, "relay draining", http.StatusServiceUnavailable)
		return
	}
	defer rl.legs.Done()
	if !validSealed(sealedQuery(r)) {
		rl.refuse(w, http.StatusBadRequest, string(attachwire.CodeFraming), "sealed is not a key id")
		return
	}
	ll := rl.newLaneLeg(w, c, c.Role, log)
	l := ll.leg
	l.sealed = sealedQuery(r)
	defer l.cancel()
	release, a := rl.holdInvite(c, l)
	if a != nil {
		status := http.StatusUnauthorized
		if a.retryable {
			w.Header().Set("Retry-After", "1")
			status = http.StatusTooManyRequests
		}
		rl.refuse(w, status, string(a.code), a.msg)
		return
	}
	defer release()
	key := roomKey{org: c.OrgID, session: c.SessionID}
	for {
		rm := rl.roomFor(key)
		if rm == nil {
			w.Header().Set("Retry-After", "1")
			rl.refuse(w, http.StatusTooManyRequests, string(attachwire.CodeRateLimited), "relay is at its room limit")
			return
		}
		l.room = rm
		err := b.bind(rm, l)
		var sealed *errSealed
		switch {
		case errors.Is(err, errRoomClosed):
			continue
		case errors.Is(err, errDraining):
			w.Header().Set("Retry-After", attachwire.FormatRetryAfter(rl.restartAfter()))
			rl.refuse(w, http.StatusServiceUnavailable, "draining", "relay restarting")
			return
		case errors.As(err, &sealed):
			rl.refuse(w, http.StatusForbidden, string(attachwire.CodeSealed), sealed.msg)
			return
		case err != nil && b.refused(err):
			return
		}
		break
	}
	ownJTI = false
	rl.runLane(r, ll, func() { b.writer(l) }, func() { b.left(l) })
}

// headerClaims verifies the attach token in the Authorization header. The
// query string is never looked at, and never logged.
func (rl *Relay) headerClaims(w http.ResponseWriter, r *http.Request) (token.Claims, bool) {
	raw, fromHeader := credential(r, nil)
	if raw == "" || !fromHeader {
		rl.refuse(w, http.StatusUnauthorized, "auth", "attach token required in the Authorization header")
		return token.Claims{}, false
	}
	c, err := rl.verifier.Verify(raw)
	if err != nil {
		rl.log.Info("relay: token refused", "path", r.URL.Path, "err", err)
		rl.refuse(w, http.StatusUnauthorized, "auth", "invalid token")
		return token.Claims{}, false
	}
	return c, true
}

// runLane drives an admitted lane leg until it ends, and owns its jti
// from the call on (it releases it): it registers the leg for its POSTs, sends the 200 (the leg is bound), runs the heartbeat and
// the writer (in this goroutine, which owns the leg), then takes the leg
// out of its room with left and joins the heartbeat.
func (rl *Relay) runLane(r *http.Request, ll *laneLeg, writer func(), left func()) {
	l := ll.leg
	role := string(l.role)
	rl.metrics.legs.WithLabelValues(role).Inc()
	defer rl.metrics.legs.WithLabelValues(role).Dec()
	rl.lane.add(ll)
	// The jti is released before the leg is unregistered: a client whose
	// POST got 410 may reopen its SSE leg with the same token at once.
	defer func() {
		rl.releaseJTI(l.jti)
		rl.lane.remove(ll)
	}()
	// The client going away ends the leg.
	stop := context.AfterFunc(r.Context(), func() {
		l.end(nil, 0, "")
		l.cancel()
	})
	defer stop()
	l.log.Info("relay: lane leg admitted")
	if err := l.lane.start(); err != nil {
		l.end(nil, 0, "")
		l.cancel()
	}
	done := make(chan struct{})
	go func() {
		defer close(done)
		l.heartbeat()
	}()
	writer()
	left()
	l.end(nil, 0, "")
	l.cancel()
	<-done
	l.log.Info("relay: lane leg ended")
}

// newLaneLeg returns a leg writing to w's SSE stream.
func (rl *Relay) newLaneLeg(w http.ResponseWriter, c token.Claims, role attachwire.Role, log *slog.Logger) *laneLeg {
	l := newLeg(rl, nil, role, c.UserID, c.JTI, log)
	l.setClaims(c)
	l.lane = newSSEStream(w, rl.cfg.WriteTimeout)
	return &laneLeg{leg: l, claims: c, answers: make(map[string]batchAnswer)}
}

// writeJSON answers a POST with status and v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	json.NewEncoder(w).Encode(v)
}

// ticketResponse is the body of a 200 from …/sse-ticket.
type ticketResponse struct {
	Ticket    string `json:"ticket"`
	ExpiresAt int64  `json:"expiresAt"`
}

// serveTicket trades a driver's or viewer's attach token (Authorization
// header) for an SSE ticket carrying the same jti, signed with the relay's
// own key, for a browser's EventSource, which cannot set headers. It
// admits nothing: the ticket is checked (and its tid burned) on the SSE
// GET.
func (rl *Relay) serveTicket(w http.ResponseWriter, r *http.Request) {
	if !rl.viewerGate(w, r) {
		return
	}
	c, ok := rl.headerClaims(w, r)
	if !ok || !rl.laneRoom(w, r, c, false, "hosts do not use tickets") {
		return
	}
	tid, err := token.NewJTI()
	if err != nil {
		http.Error(w, "no randomness", http.StatusInternalServerError)
		return
	}
	now := rl.cfg.Now()
	exp := min(now.Add(TicketTTL).Unix(), c.ExpiresAt) // never outlives the token
	if exp <= now.Unix() {
		rl.refuse(w, http.StatusUnauthorized, "auth", "invalid token")
		return
	}
	raw, err := token.MintSSETicket(rl.lane.ticketKey, token.Ticket{SessionID: c.SessionID, RoomID: c.RoomID,
		UserID: c.UserID, Role: c.Role, OrgID: c.OrgID, IssuedAt: now.Unix(), ExpiresAt: exp,
		Audience: token.TicketAudience, JTI: c.JTI, TID: tid, Name: c.Name, Invite: c.Invite, Propose: c.Propose})
	if err != nil {
		http.Error(w, "cannot mint a ticket", http.StatusInternalServerError)
		return
	}
	writeJSON(w, http.StatusOK, ticketResponse{Ticket: raw, ExpiresAt: exp})
}

package relay

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"runtime/debug"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/token"
)

// Subprotocol is the WebSocket subprotocol of interactive-attach-v1, the
// only one the relay echoes.
const Subprotocol = attachwire.Subprotocol

// bearerPrefix starts the subprotocol a browser carries its token in.
const bearerPrefix = "bearer."

// jtiRecord is what the relay remembers of a token id until the token
// expires: whose it is (a reconnect must match) and whether a leg with it is
// live (one at a time).
type jtiRecord struct {
	ident identity
	exp   time.Time
	live  bool
}

// identity is what a reconnect re-presenting a jti must match.
type identity struct {
	org, session, user string
	role               attachwire.Role
	epoch              uint64
}

func identityOf(c token.Claims) identity {
	id := identity{org: c.OrgID, session: c.SessionID, user: c.UserID, role: c.Role}
	if c.Epoch != nil {
		id.epoch = *c.Epoch
	}
	return id
}

// refuse answers a dial before the upgrade and counts it.
func (rl *Relay) refuse(w http.ResponseWriter, status int, reason, msg string) {
	rl.metrics.refusals.WithLabelValues(reason).Inc()
	http.Error(w, msg, status)
}

// serveAttach runs the checks that come before the upgrade, in order:
// draining (503 + Retry-After), the dial rate (429 + Retry-After), the path
// (404 for a sub-path no endpoint serves; the degraded lane's are
// routed to lane.go before this), the subprotocol (400), the Origin
// (403), the credential and the token (401). The rest happens on the
// upgraded connection (see admit).
func (rl *Relay) serveAttach(w http.ResponseWriter, r *http.Request) {
	if rl.draining.Load() {
		w.Header().Set("Retry-After", attachwire.FormatRetryAfter(rl.restartAfter()))
		rl.refuse(w, http.StatusServiceUnavailable, "draining", "relay restarting")
		return
	}
	if !rl.limiter.allow(clientAddr(r)) {
		w.Header().Set("Retry-After", "1")
		rl.refuse(w, http.StatusTooManyRequests, "rate", "too many dials")
		return
	}
	roomID, ok := roomPath(r.URL.Path)
	if !ok || r.Method != http.MethodGet {
		rl.refuse(w, http.StatusNotFound, "path", "not found")
		return
	}
	protos := offeredProtocols(r)
	if !hasProtocol(protos, Subprotocol) {
		rl.refuse(w, http.StatusBadRequest, "subprotocol", "subprotocol "+Subprotocol+" required")
		return
	}
	if !rl.originAllowed(r) {
		rl.refuse(w, http.StatusForbidden, "origin", "origin not allowed")
		return
	}
	raw, fromHeader := credential(r, protos)
	if raw == "" {
		rl.refuse(w, http.StatusUnauthorized, "auth", "attach token required")
		return
	}
	claims, err := rl.verifier.Verify(raw)
	if err != nil {
		rl.log.Info("relay: token refused", "path", r.URL.Path, "err", err)
		rl.refuse(w, http.StatusUnauthorized, "auth", "invalid token")
		return
	}
	if claims.Role == attachwire.RoleHost && !fromHeader {
		rl.refuse(w, http.StatusUnauthorized, "auth", "host tokens go in the Authorization header")
		return
	}
	dedupAll := claims.Role == attachwire.RoleHost && declaresDedup(r)
	if dedupAll {
		w.Header().Set(attachwire.InputDedupHeader, attachwire.InputDedupAnyCarrier) // the relay will replay to it
	}
	hj := &corkHijacker{ResponseWriter: w, pool: rl.corkBufs}
	if claims.Role != attachwire.RoleHost {
		hj.readBuffer = viewerReadBuffer
	}
	conn, err := websocket.Accept(hj, r, &websocket.AcceptOptions{
		Subprotocols:       []string{Subprotocol},
		InsecureSkipVerify: true, // the Origin was checked above
	})
	if err != nil {
		return
	}
	if !rl.addLeg() {
		conn.Close(websocket.StatusServiceRestart, "relay closing")
		return
	}
	// The leg lives on a goroutine of its own and this handler returns:
	// its stack grew through the handshake and the token's verification,
	// and a goroutine keeps the largest stack it has needed, so an idle
	// viewer read on this one would hold it for as long as it stays.
	// A panic is contained to its connection, as net/http contains a
	// handler's.
	go func() {
		defer rl.legs.Done()
		defer func() {
			if p := recover(); p != nil {
				rl.log.Error("relay: leg panicked", "panic", fmt.Sprint(p), "stack", string(debug.Stack()))
				conn.CloseNow()
			}
		}()
		rl.admit(conn, hj.cc, roomID, claims, dedupAll)
	}()
}

// declaresDedup reports whether a host's dial declares that it
// deduplicates Input on every carrier (attachwire.InputDedupHeader).
func declaresDedup(r *http.Request) bool {
	return r.Header.Get(attachwire.InputDedupHeader) == attachwire.InputDedupAnyCarrier
}

// addLeg counts a new leg in legs unless the relay is draining or closed.
// The check and the Add share rl.mu with Shutdown and Close, so no leg is
// added once they have started waiting for legs to end (a WaitGroup must
// not be added to at zero while it is waited on).
func (rl *Relay) addLeg() bool {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if rl.closed || rl.draining.Load() {
		return false
	}
	rl.legs.Add(1)
	return true
}

// offeredProtocols returns the subprotocols the client offered.
func offeredProtocols(r *http.Request) []string {
	var out []string
	for _, h := range r.Header.Values("Sec-WebSocket-Protocol") {
		for p := range strings.SplitSeq(h, ",") {
			if p = strings.TrimSpace(p); p != "" {
				out = append(out, p)
			}
		}
	}
	return out
}

func hasProtocol(protos []string, want string) bool {
	for _, p := range protos {
		if p == want {
			return true
		}
	}
	return false
}

// credential returns the token: the Authorization header's bearer token,
// or the one a browser carries in a "bearer.<base64url>" subprotocol.
func credential(r *http.Request, protos []string) (raw string, fromHeader bool) {
	if h := r.Header.Get("Authorization"); h != "" {
		scheme, tok, ok := strings.Cut(h, " ")
		if ok && strings.EqualFold(scheme, "Bearer") {
			return strings.TrimSpace(tok), true
		}
		return "", true
	}
	for _, p := range protos {
		if enc, ok := strings.CutPrefix(p, bearerPrefix); ok {
			b, err := base64.RawURLEncoding.DecodeString(strings.TrimRight(enc, "="))
			if err != nil {
				return "", false
			}
			return string(b), false
		}
	}
	return "", false
}

// originAllowed accepts a request without Origin (native clients), one from
// the relay's own origin, and the configured ones.
func (rl *Relay) originAllowed(r *http.Request) bool {
	o := r.Header.Get("Origin")
	if o == "" {
		return true
	}
	u, err := url.Parse(o)
	if err == nil && strings.EqualFold(u.Host, r.Host) {
		return true
	}
	for _, a := range rl.cfg.AllowedOrigins {
		if strings.EqualFold(strings.TrimSuffix(a, "/"), o) {
			return true
		}
	}
	return false
}

// admission is a refusal after the upgrade: an error control, then a close.
type admission struct {
	code      attachwire.ErrorCode
	msg       string
	retryable bool
	status    websocket.StatusCode
	handled   bool   // already refused on the wire
	reason    string // the close reason; empty: the code
}

// legRefusal is a refusal after the upgrade closed with its code.
func legRefusal(code attachwire.ErrorCode, msg string, retryable bool, status websocket.StatusCode) *admission {
	return &admission{code: code, msg: msg, retryable: retryable, status: status}
}

func (a *admission) Error() string { return "relay: " + string(a.code) + ": " + a.msg }

// admit runs the checks that need the connection, in order: room binding
// (path = roomId = sessionId), the jti (initial admission or an
// identity-matched reconnect; one live leg per jti), the first frame
// (subscribe within SubscribeTimeout, its sessionId, asRole within the
// token's role, a host's epoch equal to the claim), the room's limits and,
// for a host, the epoch CAS. Then the leg runs until it ends. dedupAll is
// a host's InputDedupHeader declaration; cc is the connection under conn
// (nil where the server could not be hijacked through the wrapper).
func (rl *Relay) admit(conn *websocket.Conn, cc *corkConn, roomID string, c token.Claims, dedupAll bool) {
	log := rl.log.With("org", c.OrgID, "room", roomID, "role", string(c.Role), "user", c.UserID)
	if c.RoomID != roomID || c.SessionID != roomID {
		rl.reject(conn, log, legRefusal(attachwire.CodeRoomMismatch, "token is for another room", false, websocket.StatusPolicyViolation))
		return
	}
	if a := rl.takeJTI(c); a != nil {
		rl.reject(conn, log, a)
		return
	}
	defer rl.releaseJTI(c.JTI)
	conn.SetReadLimit(rl.cfg.ViewerReadLimit)
	if c.Role == attachwire.RoleHost {
		conn.SetReadLimit(rl.cfg.HostReadLimit)
	}
	sub, a := rl.readSubscribe(conn, c)
	if a != nil {
		rl.reject(conn, log, a)
		return
	}
	key := roomKey{org: c.OrgID, session: c.SessionID}
	l := newLeg(rl, conn, sub.AsRole, c.UserID, c.JTI, log)
	l.cc = cc
	l.setClaims(c)
	l.dedupAll = dedupAll
	l.wantsRecord = sub.Record
	l.sealed = sub.Sealed
	l.presCounts = sub.Presence == attachwire.PresenceCounts
	defer l.cancel()
	release, a := rl.holdInvite(c, l)
	if a != nil {
		rl.reject(conn, log, a)
		return
	}
	defer release()
	for {
		rm := rl.roomFor(key)
		if rm == nil {
			rl.reject(conn, log, legRefusal(attachwire.CodeRateLimited, "relay is at its room limit", true, websocket.StatusTryAgainLater))
			return
		}
		l.room = rm
		var err error
		if sub.AsRole == attachwire.RoleHost {
			if err = rm.claimHost(*c.Epoch); err == nil {
				err = rm.bindHost(l, *c.Epoch)
			}
		} else {
			err = rm.join(l)
		}
		var stale *errEpochStale
		var sealed *errSealed
		switch {
		case errors.Is(err, errRoomClosed):
			continue
		case errors.Is(err, errDraining):
			// Admitted while Shutdown announced the restart to the rooms.
			after := rl.restartAfter()
			rl.reject(conn, log, &admission{code: attachwire.CodeRelayRestarting, msg: attachwire.FormatRedialAfter(after),
				retryable: true, status: websocket.StatusServiceRestart, reason: attachwire.RestartCloseReason(after)})
			return
		case errors.As(err, &stale):
			rl.reject(conn, log, legRefusal(attachwire.CodeEpochStale, "epoch "+strconv.FormatUint(stale.epoch, 10)+
				" is stale", stale.bound && stale.epoch == stale.current, websocket.StatusPolicyViolation))
			return
		case errors.Is(err, ErrClusterUnavailable):
			log.Info("relay: host refused, cluster unavailable", "err", err)
			rl.reject(conn, log, legRefusal(attachwire.CodeRateLimited, "relay node cannot register the room", true, websocket.StatusTryAgainLater))
			return
		case errors.Is(err, errKicked):
			rl.reject(conn, log, legRefusal(attachwire.CodeAuth, msgKicked, false, websocket.StatusPolicyViolation))
			return
		case errors.Is(err, errRoomFull):
			rl.reject(conn, log, legRefusal(attachwire.CodeRateLimited, "room is full", true, websocket.StatusTryAgainLater))
			return
		case errors.As(err, &sealed):
			rl.reject(conn, log, legRefusal(attachwire.CodeSealed, sealed.msg, false, websocket.StatusPolicyViolation))
			return
		}
		break
	}
	rl.run(l, sub)
}

// run drives an admitted leg until it ends and takes it out of its room.
func (rl *Relay) run(l *leg, sub attachwire.Subscribe) {
	role := string(l.role)
	rl.metrics.legs.WithLabelValues(role).Inc()
	defer rl.metrics.legs.WithLabelValues(role).Dec()
	l.log.Info("relay: leg admitted")
	if sub.Viewport != nil && sub.Viewport.Cols > 0 && sub.Viewport.Rows > 0 {
		l.room.resizeFrom(l, attachwire.Resize{Cols: sub.Viewport.Cols, Rows: sub.Viewport.Rows})
	}
	if rl.keep(l) {
		defer rl.unkeep(l)
	}
	done := make(chan struct{}, 1)
	if l.role == attachwire.RoleHost {
		go func() {
			defer func() { done <- struct{}{} }()
			l.hostWriter()
		}()
		l.readHost()
		l.room.hostLeft(l)
	} else {
		go func() {
			defer func() { done <- struct{}{} }()
			l.viewerWriter(resumeRequest{after: sub.ResumeFrom, epoch: sub.ResumeEpoch})
		}()
		l.readViewer()
		l.room.removeViewer(l)
	}
	l.end(nil, websocket.StatusNormalClosure, "")
	<-done
	l.cancel()
	l.log.Info("relay: leg ended")
}

// reject sends a refusal on an upgraded connection and closes it.
func (rl *Relay) reject(conn *websocket.Conn, log interface{ Info(string, ...any) }, a *admission) {
	if a.handled {
		return
	}
	rl.metrics.refusals.WithLabelValues(string(a.code)).Inc()
	log.Info("relay: leg refused", "code", string(a.code), "msg", a.msg)
	ctx, cancel := context.WithTimeout(rl.ctx, rl.cfg.WriteTimeout)
	defer cancel()
	if b, err := controlWire(attachwire.ErrorControl{Code: a.code, Message: a.msg, Retryable: a.retryable}); err == nil {
		conn.Write(ctx, websocket.MessageBinary, b)
	}
	reason := a.reason
	if reason == "" {
		reason = string(a.code)
	}
	conn.Close(a.status, reason)
}

// readSubscribe waits for the leg's first frame, which must be a subscribe
// matching the token.
func (rl *Relay) readSubscribe(conn *websocket.Conn, c token.Claims) (attachwire.Subscribe, *admission) {
	// The read runs in its own goroutine because cancelling a read kills
	// the connection, and a leg that is late still gets its error control.
	type result struct {
		typ websocket.MessageType
		b   []byte
		err error
	}
	ch := make(chan result, 1)
	go func() {
		typ, b, err := conn.Read(rl.ctx)
		ch <- result{typ, b, err}
	}()
	t := time.NewTimer(rl.cfg.SubscribeTimeout)
	defer t.Stop()
	var res result
	select {
	case res = <-ch:
	case <-t.C:
		rl.reject(conn, rl.log, legRefusal(attachwire.CodeFraming, "expected subscribe", false, websocket.StatusPolicyViolation))
		<-ch // the close ends the read
		return attachwire.Subscribe{}, &admission{handled: true}
	}
	if res.err != nil {
		if websocket.CloseStatus(res.err) == websocket.StatusNormalClosure {
			// A peer that checks the WebSocket path works and leaves (a
			// host's upgrade probe from the degraded lane) is no refusal.
			rl.log.Debug("relay: leg closed before subscribing", "reason", attachwire.CapMessage(res.err.Error()))
			return attachwire.Subscribe{}, &admission{handled: true}
		}
		return attachwire.Subscribe{}, legRefusal(attachwire.CodeFraming, "expected subscribe", false, websocket.StatusPolicyViolation)
	}
	if res.typ != websocket.MessageBinary {
		return attachwire.Subscribe{}, legRefusal(attachwire.CodeFraming, "binary frames only", false, websocket.StatusUnsupportedData)
	}
	return parseSubscribe(res.b, c)
}

// parseSubscribe checks a leg's first message: a Control frame holding a
// subscribe for the token's session, asking for a role the token allows,
// and for a host the token's epoch.
func parseSubscribe(b []byte, c token.Claims) (attachwire.Subscribe, *admission) {
	framing := func(msg string) *admission {
		return legRefusal(attachwire.CodeFraming, attachwire.CapMessage(msg), false, websocket.StatusProtocolError)
	}
	f, err := attachwire.DecodeFrame(b)
	if err != nil {
		return attachwire.Subscribe{}, framing(err.Error())
	}
	if f.Type != attachwire.TypeControl {
		return attachwire.Subscribe{}, framing("the first frame must be subscribe")
	}
	ctl, err := attachwire.DecodeControl(f.Payload)
	if err != nil {
		return attachwire.Subscribe{}, framing(err.Error())
	}
	sub, ok := ctl.(attachwire.Subscribe)
	if !ok {
		return attachwire.Subscribe{}, framing("the first frame must be subscribe")
	}
	policy := func(code attachwire.ErrorCode, msg string) *admission {
		return legRefusal(code, msg, false, websocket.StatusPolicyViolation)
	}
	switch {
	case sub.SessionID != c.SessionID:
		return sub, policy(attachwire.CodeRoomMismatch, "subscribe is for another session")
	case c.Role == attachwire.RoleHost && sub.AsRole != attachwire.RoleHost:
		return sub, policy(attachwire.CodeAuth, "a host token subscribes as host")
	case sub.AsRole == attachwire.RoleHost && c.Role != attachwire.RoleHost:
		return sub, policy(attachwire.CodeAuth, "asRole host needs a host token")
	case sub.AsRole == attachwire.RoleDriver && c.Role == attachwire.RoleViewer:
		return sub, policy(attachwire.CodePenDenied, "a viewer token cannot drive")
	case sub.AsRole != attachwire.RoleHost && sub.AsRole != attachwire.RoleDriver && sub.AsRole != attachwire.RoleViewer:
		return sub, framing("unknown asRole")
	case c.Role == attachwire.RoleHost && (sub.Epoch == nil || c.Epoch == nil || *sub.Epoch != *c.Epoch):
		return sub, policy(attachwire.CodeAuth, "subscribe epoch differs from the token's")
	case !validSealed(sub.Sealed):
		return sub, framing("subscribe sealed is not a key id")
	}
	return sub, nil
}

// takeJTI admits a token's jti: the first presentation records it until
// the token expires; a later one must carry the same identity (a
// reconnect) and finds no live leg with it.
func (rl *Relay) takeJTI(c token.Claims) *admission {
	now := rl.cfg.Now()
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if len(rl.jtis) > max(rl.jtiSweep, jtiSweepMin) {
		for k, rec := range rl.jtis {
			if !rec.live && now.After(rec.exp.Add(5*time.Second)) {
				delete(rl.jtis, k)
			}
		}
		rl.jtiSweep = 2 * len(rl.jtis)
	}
	id := identityOf(c)
	rec := rl.jtis[c.JTI]
	if rl.kickedLocked(roomKey{org: c.OrgID, session: c.SessionID}, c.JTI, now) {
		return legRefusal(attachwire.CodeAuth, msgKicked, false, websocket.StatusPolicyViolation)
	}
	switch {
	case rec == nil:
		rl.jtis[c.JTI] = &jtiRecord{ident: id, exp: time.Unix(c.ExpiresAt, 0), live: true}
		return nil
	case rec.ident != id:
		return legRefusal(attachwire.CodeAuth, "token id already used", false, websocket.StatusPolicyViolation)
	case rec.live:
		// A half-open predecessor may still hold it; keepalive ends that.
		return legRefusal(attachwire.CodeAuth, "token id has a live connection", true, websocket.StatusPolicyViolation)
	}
	rec.live = true
	return nil
}

// jtiSweepMin is the fewest jti records a sweep waits for.
const jtiSweepMin = 4096

func (rl *Relay) releaseJTI(jti string) {
	rl.mu.Lock()
	defer rl.mu.Unlock()
	if rec := rl.jtis[jti]; rec != nil {
		rec.live = false
	}
}

package relay_test

import (
	"log/slog"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/token"
)

// dialStatus dials and returns the HTTP status of a refused handshake
// (101 when it was accepted).
func dialStatus(t *testing.T, url, tok string, opts *relaytest.DialOptions) *http.Response {
	t.Helper()
	c, resp, err := relaytest.Dial(ctxT(t), url, tok, opts)
	if err == nil {
		c.WS.CloseNow()
		return &http.Response{StatusCode: http.StatusSwitchingProtocols, Header: http.Header{}}
	}
	if resp == nil {
		t.Fatalf("dial: %v", err)
	}
	return resp
}

// dialSub dials and subscribes without waiting for anything.
func dialSub(t *testing.T, s *relaytest.Server, tok string, sub attachwire.Subscribe) *relaytest.Conn {
	t.Helper()
	return relaytest.MustDial(t, s.RoomURL(room), tok, sub)
}

// Refusals before the upgrade carry an HTTP status.
func TestAdmissionHTTPRefusals(t *testing.T) {
	s := relaytest.NewServer(t, relay.Config{Logger: discardLogger(), AllowedOrigins: []string{"https://app.example"}})
	now := time.Now().Unix()
	viewer := s.ViewerToken(t, room, "ann")
	for _, tc := range []struct {
		name   string
		url    string
		tok    string
		opts   *relaytest.DialOptions
		status int
	}{
		{"no token", s.RoomURL(room), "", nil, 401},
		{"garbage token", s.RoomURL(room), "not.a.jwt", nil, 401},
		{"expired beyond leeway", s.RoomURL(room), s.Token(t, token.Claims{RoomID: room, Role: attachwire.RoleViewer,
			UserID: "ann", IssuedAt: now - 60, ExpiresAt: now - 10}), nil, 401},
		{"expired within leeway", s.RoomURL(room), s.Token(t, token.Claims{RoomID: room, Role: attachwire.RoleViewer,
			UserID: "ann", IssuedAt: now - 60, ExpiresAt: now - 2}), nil, 101},
		{"host token in bearer subprotocol", s.RoomURL(room), s.HostToken(t, room, 1),
			&relaytest.DialOptions{BearerSubprotocol: true}, 401},
		{"viewer token in bearer subprotocol", s.RoomURL(room), viewer,
			&relaytest.DialOptions{BearerSubprotocol: true}, 101},
		{"no version subprotocol", s.RoomURL(room), viewer,
			&relaytest.DialOptions{Subprotocols: []string{"interactive-attach-v0"}}, 400},
		{"foreign origin", s.RoomURL(room), viewer,
			&relaytest.DialOptions{Header: http.Header{"Origin": {"https://evil.example"}}}, 403},
		{"allowed origin", s.RoomURL(room), viewer,
			&relaytest.DialOptions{Header: http.Header{"Origin": {"https://app.example"}}}, 101},
		{"own origin", s.RoomURL(room), viewer,
			&relaytest.DialOptions{Header: http.Header{"Origin": {s.HTTPURL}}}, 101},
		{"sub-path nothing serves", s.RoomURL(room) + "/ssx", viewer, nil, 404},
		{"host sub-path nothing serves", s.RoomURL(room) + "/host/ws", viewer, nil, 404},
		{"unknown path", s.URL + "/v2/rooms/" + room, viewer, nil, 404},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if resp := dialStatus(t, tc.url, tc.tok, tc.opts); resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
		})
	}
}

// Past DialsPerSecond a client address gets 429 with Retry-After.
func TestAdmissionDialRateLimited(t *testing.T) {
	s := relaytest.NewServer(t, relay.Config{Logger: discardLogger(), DialsPerSecond: 1})
	tok := s.ViewerToken(t, room, "ann")
	dialStatus(t, s.RoomURL(room), tok, nil)
	resp := dialStatus(t, s.RoomURL(room), tok, nil)
	if resp.StatusCode != 429 || resp.Header.Get("Retry-After") == "" {
		t.Fatalf("second dial: %d Retry-After %q", resp.StatusCode, resp.Header.Get("Retry-After"))
	}
}

// Refusals after the upgrade: an error control, then the close.
func TestAdmissionLegRefusals(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	other := "sess-2"
	for _, tc := range []struct {
		name   string
		tok    string
		sub    attachwire.Subscribe
		status websocket.StatusCode
		code   attachwire.ErrorCode
	}{
		{"token for another room", s.ViewerToken(t, other, "ann"),
			attachwire.Subscribe{SessionID: other, AsRole: attachwire.RoleViewer}, websocket.StatusPolicyViolation, attachwire.CodeRoomMismatch},
		{"subscribe for another session", s.ViewerToken(t, room, "ann"),
			attachwire.Subscribe{SessionID: other, AsRole: attachwire.RoleViewer}, websocket.StatusPolicyViolation, attachwire.CodeRoomMismatch},
		{"viewer token as driver", s.ViewerToken(t, room, "ann"),
			attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleDriver}, websocket.StatusPolicyViolation, attachwire.CodePenDenied},
		{"driver token as host", s.DriverToken(t, room, "ann"),
			attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleHost, Epoch: u64(1)}, websocket.StatusPolicyViolation, attachwire.CodeAuth},
		{"host token as viewer", s.HostToken(t, room, 1),
			attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer}, websocket.StatusPolicyViolation, attachwire.CodeAuth},
		{"host epoch differs from claim", s.HostToken(t, room, 1),
			attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleHost, Epoch: u64(2)}, websocket.StatusPolicyViolation, attachwire.CodeAuth},
		{"host without epoch", s.HostToken(t, room, 1),
			attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleHost}, websocket.StatusPolicyViolation, attachwire.CodeAuth},
		{"unknown asRole", s.DriverToken(t, room, "ann"),
			attachwire.Subscribe{SessionID: room, AsRole: "admin"}, websocket.StatusProtocolError, attachwire.CodeFraming},
	} {
		t.Run(tc.name, func(t *testing.T) {
			url := s.RoomURL(room)
			if tc.name == "token for another room" {
				url = s.RoomURL(room) // the path names room, the token sess-2
			}
			c := relaytest.MustDial(t, url, tc.tok, tc.sub)
			expectClosed(t, c, tc.status, tc.code)
		})
	}
}

// The first frame must be subscribe, within SubscribeTimeout.
func TestAdmissionFirstFrameMustBeSubscribe(t *testing.T) {
	cfg := quiet()
	cfg.SubscribeTimeout = 50 * time.Millisecond
	s := relaytest.NewServer(t, cfg)
	c, _, err := relaytest.Dial(ctxT(t), s.RoomURL(room), s.ViewerToken(t, room, "ann"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c.WS.CloseNow()
	c.SendControl(ctxT(t), attachwire.Grab{})
	expectClosed(t, c, websocket.StatusProtocolError, attachwire.CodeFraming)

	c2, _, err := relaytest.Dial(ctxT(t), s.RoomURL(room), s.ViewerToken(t, room, "ann"), nil)
	if err != nil {
		t.Fatal(err)
	}
	defer c2.WS.CloseNow()
	expectClosed(t, c2, websocket.StatusPolicyViolation, attachwire.CodeFraming) // silent past the timeout
}

// Frame types outside a leg's producer set close it with framing.
func TestAdmissionMatrixFramingCloses(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	exit := attachwire.Exit{}.Frame(1, 1)
	marker, _ := attachwire.Marker{Label: "m"}.Frame(1, 1)
	sn, _ := attachwire.NewSnapshot(0, screen(1, "x"))
	snap, _ := sn.Frame(1, 1)
	for _, tc := range []struct {
		name string
		role attachwire.Role
		f    attachwire.Frame
	}{
		{"host sends Input", attachwire.RoleHost, attachwire.Input{InputSeq: 1, Data: []byte("x")}.Frame(0, 0)},
		{"driver sends Output", attachwire.RoleDriver, attachwire.NewOutputFrame(1, 1, []byte("x"))},
		{"viewer sends Output", attachwire.RoleViewer, attachwire.NewOutputFrame(1, 1, []byte("x"))},
		{"viewer sends Exit", attachwire.RoleViewer, exit},
		{"driver sends Marker", attachwire.RoleDriver, marker},
		{"viewer sends Snapshot", attachwire.RoleViewer, snap},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var c *relaytest.Conn
			if tc.role == attachwire.RoleHost {
				c = dialHost(t, s, 1).c
			} else {
				tok := s.DriverToken(t, room, "ann")
				if tc.role == attachwire.RoleViewer {
					tok = s.ViewerToken(t, room, "ann")
				}
				c = dialViewer(t, s, tok, tc.role, attachwire.Subscribe{})
			}
			if err := c.Send(ctxT(t), tc.f); err != nil {
				t.Fatal(err)
			}
			expectClosed(t, c, websocket.StatusProtocolError, attachwire.CodeFraming)
			if tc.role == attachwire.RoleHost {
				waitHostGone(t, s)
			}
		})
	}
}

// A reserved frame type byte and a malformed control are framing errors.
// (The bytes are deliberately invalid: no codec writes them.)
func TestAdmissionUndecodableFrameCloses(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	for name, b := range map[string][]byte{
		"reserved type":       {0x09, 0x00, 0x00},
		"truncated varint":    {0x01, 0x80},
		"control not json":    {0x07, 0x00, 0x00, 0x02, '{', '{'},
		"resize 0 columns":    {0x03, 0x00, 0x00, 0x00, 0x18, 0x00, 0x00},
		"input bad userIdLen": {0x02, 0x00, 0x00, 0x01, 0x00, 0x7f},
	} {
		t.Run(name, func(t *testing.T) {
			c := dialViewer(t, s, s.DriverToken(t, room, "ann"), attachwire.RoleDriver, attachwire.Subscribe{})
			if err := c.WS.Write(ctxT(t), websocket.MessageBinary, b); err != nil {
				t.Fatal(err)
			}
			expectClosed(t, c, websocket.StatusProtocolError, attachwire.CodeFraming)
		})
	}
}

// A misrouted known control is ignored: the leg stays and keeps working.
func TestAdmissionMisroutedControlsIgnored(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := dialHost(t, s, 1)
	for _, c := range []attachwire.Control{attachwire.Grab{}, attachwire.Release{}, attachwire.ResumeFrom{Seq: 1},
		attachwire.InputAck{AckInputSeq: 3}, attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleHost}} {
		if err := h.c.SendControl(ctxT(t), c); err != nil {
			t.Fatal(err)
		}
	}
	v := dialViewer(t, s, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer, attachwire.Subscribe{})
	for _, c := range []attachwire.Control{attachwire.Kill{Reason: attachwire.KillStopped},
		attachwire.SnapshotRequest{Reason: attachwire.SnapshotJoin}, attachwire.PenState{}} {
		if err := v.SendControl(ctxT(t), c); err != nil {
			t.Fatal(err)
		}
	}
	h.snapshot("alive")
	if _, scr := snapshotOf(t, relaytest.NextFrame(t, v)); text(scr) != "alive" {
		t.Fatalf("got %q", text(scr))
	}
}

// A text message closes the leg (1003) after error framing.
func TestAdmissionTextMessageClosesLeg(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	v := dialViewer(t, s, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer, attachwire.Subscribe{})
	if err := v.WS.Write(ctxT(t), websocket.MessageText, []byte("hello")); err != nil {
		t.Fatal(err)
	}
	expectClosed(t, v, websocket.StatusUnsupportedData, attachwire.CodeFraming)
}

// A message over the leg's read limit closes it with 1009.
func TestAdmissionMessageSizeLimits(t *testing.T) {
	cfg := quiet()
	cfg.HostReadLimit = 64 << 10
	cfg.ViewerReadLimit = 1 << 10
	s := relaytest.NewServer(t, cfg)
	h := dialHost(t, s, 1)
	h.output(strings.Repeat("x", 60<<10)) // under the host's limit
	h.output(strings.Repeat("x", 65<<10))
	expectClosed(t, h.c, websocket.StatusMessageTooBig, "")
	d := dialViewer(t, s, s.DriverToken(t, room, "ann"), attachwire.RoleDriver, attachwire.Subscribe{})
	input(t, d, 1, 0, "", strings.Repeat("y", 2<<10))
	expectClosed(t, d, websocket.StatusMessageTooBig, "")
}

// Rooms are keyed by (orgId, sessionId): a viewer of another org with the
// same session id is in another room and sees nothing of this one.
func TestAdmissionOrgIsolation(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := dialHost(t, s, 1)
	h.snapshot("secret")
	tok := s.Token(t, token.Claims{RoomID: room, OrgID: "org-other", Role: attachwire.RoleViewer, UserID: "eve"})
	v := dialViewer(t, s, tok, attachwire.RoleViewer, attachwire.Subscribe{})
	if st := relaytest.ExpectControl[attachwire.RoomState](t, v); st.State != attachwire.RoomHostReconnecting {
		t.Fatalf("other org's room is %q", st.State)
	}
	h.output("more")
	ctx, cancel := contextWithTimeout(200 * time.Millisecond)
	defer cancel()
	for {
		f, err := v.Next(ctx)
		if err != nil {
			break
		}
		if f.Type != attachwire.TypeControl {
			t.Fatalf("other org's viewer got %s", f.Type)
		}
	}
}

// jti: a different token re-using a jti is refused (not retryable); the
// same token on a second concurrent leg is refused (retryable: the first may
// be half-open); the same token after the first leg ended is a reconnect.
func TestAdmissionReplayedJTIRefused(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	first := s.Token(t, token.Claims{RoomID: room, Role: attachwire.RoleViewer, UserID: "ann", JTI: "jti-1"})
	c := dialSub(t, s, first, attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer})
	relaytest.ExpectControl[attachwire.PenState](t, c)
	c.Close()
	forged := s.Token(t, token.Claims{RoomID: room, Role: attachwire.RoleViewer, UserID: "eve", JTI: "jti-1"})
	r := dialSub(t, s, forged, attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer})
	if cl := expectClosed(t, r, websocket.StatusPolicyViolation, attachwire.CodeAuth); cl.Err != nil && cl.Err.Retryable {
		t.Error("replayed jti refusal is retryable")
	}
}

func TestAdmissionConcurrentSameJTIRefused(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	tok := s.ViewerToken(t, room, "ann")
	sub := attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer}
	a := dialSub(t, s, tok, sub)
	relaytest.ExpectControl[attachwire.PenState](t, a)
	b := dialSub(t, s, tok, sub)
	if cl := expectClosed(t, b, websocket.StatusPolicyViolation, attachwire.CodeAuth); cl.Err != nil && !cl.Err.Retryable {
		t.Error("concurrent jti refusal is not retryable")
	}
	a.Close()
	testkit.Eventually(t, "first leg gone", func() bool { return metric(t, s, `ptyhost_relay_legs{role="viewer"}`) == 0 })
	c := dialSub(t, s, tok, sub) // a reconnect with the same token
	relaytest.ExpectControl[attachwire.PenState](t, c)
}

// Rooms and viewers per room are capped: past the cap a leg gets
// rate-limited and close 1013.
func TestAdmissionRoomAndViewerCaps(t *testing.T) {
	s := relaytest.NewServer(t, relay.Config{Logger: discardLogger(), MaxRooms: 1, MaxViewersPerRoom: 1})
	a := dialViewer(t, s, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer, attachwire.Subscribe{})
	relaytest.ExpectControl[attachwire.PenState](t, a)
	b := dialViewer(t, s, s.ViewerToken(t, room, "ben"), attachwire.RoleViewer, attachwire.Subscribe{})
	expectClosed(t, b, websocket.StatusTryAgainLater, attachwire.CodeRateLimited)
	other := relaytest.MustDial(t, s.RoomURL("sess-2"), s.ViewerToken(t, "sess-2", "cy"),
		attachwire.Subscribe{SessionID: "sess-2", AsRole: attachwire.RoleViewer})
	expectClosed(t, other, websocket.StatusTryAgainLater, attachwire.CodeRateLimited)
}

// /healthz, /readyz and /metrics answer; the metrics count legs by role.
func TestHealthReadyAndMetrics(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	if code, body := s.Get(t, "/healthz"); code != 200 || body != "ok\n" {
		t.Fatalf("/healthz %d %q", code, body)
	}
	if code, _ := s.Get(t, "/readyz"); code != 200 {
		t.Fatalf("/readyz %d", code)
	}
	dialHost(t, s, 1)
	if got := metric(t, s, `ptyhost_relay_legs{role="host"}`); got != 1 {
		t.Fatalf("host legs %v", got)
	}
	if got := metric(t, s, "ptyhost_relay_rooms"); got != 1 {
		t.Fatalf("rooms %v", got)
	}
}

// MaxTokenTTL is the relay's own bound on a credential's lifetime: a token
// its issuer minted for longer is refused 401 however valid otherwise.
func TestAdmissionMaxTokenTTL(t *testing.T) {
	s := relaytest.NewServer(t, relay.Config{Logger: discardLogger(), MaxTokenTTL: time.Hour})
	now := time.Now().Unix()
	for _, tc := range []struct {
		name   string
		life   int64
		status int
	}{
		{"a minute", 60, 101},
		{"an hour", 3600, 101},
		{"a day", 86400, 401},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tok := s.Token(t, token.Claims{RoomID: room, Role: attachwire.RoleViewer, UserID: "ann",
				IssuedAt: now, ExpiresAt: now + tc.life})
			if resp := dialStatus(t, s.RoomURL(room), tok, nil); resp.StatusCode != tc.status {
				t.Fatalf("status %d, want %d", resp.StatusCode, tc.status)
			}
		})
	}
}

// A peer that closes normally before subscribing (a host's upgrade probe
// from the degraded lane) is not counted or logged as a refused leg.
func TestAdmissionCloseBeforeSubscribeIsNoRefusal(t *testing.T) {
	logs := new(testkit.Buffer)
	cfg := quiet()
	cfg.Logger = slog.New(slog.NewTextHandler(logs, &slog.HandlerOptions{Level: slog.LevelDebug}))
	s := relaytest.NewServer(t, cfg)
	c, _, err := relaytest.Dial(ctxT(t), s.RoomURL(room), s.HostToken(t, room, 1), nil)
	if err != nil {
		t.Fatal(err)
	}
	c.WS.Close(websocket.StatusNormalClosure, "upgrade probe")
	testkit.Eventually(t, "the close logged", func() bool { return strings.Contains(logs.String(), "closed before subscribing") })
	if strings.Contains(logs.String(), "leg refused") {
		t.Errorf("the probe was logged as a refused leg:\n%s", logs.String())
	}
	if n := metric(t, s, `ptyhost_relay_refusals_total{reason="framing"}`); n != 0 {
		t.Errorf("refusals_total{framing} = %v, want 0", n)
	}
}

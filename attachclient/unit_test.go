package attachclient

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
)

func TestClassifyDial(t *testing.T) {
	resp := func(status int, retryAfter string) *http.Response {
		h := http.Header{}
		if retryAfter != "" {
			h.Set("Retry-After", retryAfter)
		}
		return &http.Response{StatusCode: status, Header: h}
	}
	cause := errors.New("handshake failed")
	for _, tc := range []struct {
		name    string
		resp    *http.Response
		restart time.Duration // -1: not a restart
		floor   time.Duration // a 429's wait floor
	}{
		{"503 with delta-seconds", resp(503, "7"), 7 * time.Second, 0},
		{"bare 503", resp(503, ""), -1, 0},
		{"503 with a past date", resp(503, "Wed, 21 Oct 2015 07:28:00 GMT"), 0, 0},
		{"503 with 0", resp(503, "0"), 0, 0},
		{"503 with prose", resp(503, "soon"), -1, 0},
		{"429 with Retry-After", resp(429, "3"), -1, 3 * time.Second},
		{"bare 429", resp(429, ""), -1, 0},
		{"401 with Retry-After", resp(401, "3"), -1, 0},
		{"no answer", nil, -1, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := classifyDial(tc.resp, cause)
			var r *restartError
			if errors.As(err, &r) != (tc.restart >= 0) {
				t.Fatalf("classifyDial = %v", err)
			}
			if tc.restart >= 0 && r.hint != tc.restart {
				t.Fatalf("hint %v, want %v", r.hint, tc.restart)
			}
			if tc.restart < 0 && !errors.Is(err, cause) {
				t.Fatalf("dial error %v does not wrap the cause", err)
			}
			var de *dialError
			if errors.As(err, &de) && de.retryAfter != tc.floor {
				t.Fatalf("rate-limit floor %v, want %v", de.retryAfter, tc.floor)
			}
		})
	}
}

func TestClassifyClose(t *testing.T) {
	for _, tc := range []struct {
		name    string
		err     error
		restart time.Duration // -1: not a restart
	}{
		{"1012 with the grammar", websocket.CloseError{Code: 1012, Reason: "relay-restarting: redial after 4s"}, 4 * time.Second},
		{"1012 without a reason", websocket.CloseError{Code: 1012}, 0},
		{"other code, restart reason", websocket.CloseError{Code: 1001, Reason: "relay-restarting: redial after 2s"}, 2 * time.Second},
		{"1008 epoch-stale", websocket.CloseError{Code: 1008, Reason: "epoch-stale"}, -1},
		{"1000", websocket.CloseError{Code: 1000, Reason: "bye"}, -1},
		{"not a close", errors.New("connection reset"), -1},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := classifyClose(tc.err)
			var r *restartError
			if errors.As(err, &r) != (tc.restart >= 0) {
				t.Fatalf("classifyClose = %v", err)
			}
			if tc.restart >= 0 && r.hint != tc.restart {
				t.Fatalf("hint %v, want %v", r.hint, tc.restart)
			}
		})
	}
}

func TestClassifyControl(t *testing.T) {
	ctl := func(code attachwire.ErrorCode, msg string, retryable bool) attachwire.ErrorControl {
		return attachwire.ErrorControl{Code: code, Message: msg, Retryable: retryable}
	}
	for _, tc := range []struct {
		name string
		ctl  attachwire.ErrorControl
		want string // stale, miss, restart, stop, none
	}{
		{"epoch-stale retryable", ctl(attachwire.CodeEpochStale, "", true), "stale"},
		{"epoch-stale not retryable", ctl(attachwire.CodeEpochStale, "", false), "stale"},
		{"ring-miss not retryable", ctl(attachwire.CodeRingMiss, "", false), "miss"},
		{"relay-restarting", ctl(attachwire.CodeRelayRestarting, "redial after 3s", true), "restart"},
		{"relay-restarting marked final", ctl(attachwire.CodeRelayRestarting, "redial after 3s", false), "restart"},
		{"auth not retryable", ctl(attachwire.CodeAuth, "revoked", false), "stop"},
		{"internal retryable", ctl(attachwire.CodeInternal, "oops", true), "none"},
		{"unknown code not retryable", ctl("room-deleted", "gone", false), "stop"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := classifyControl(tc.ctl)
			var (
				stale   *epochStaleError
				miss    *ringMissError
				restart *restartError
				stop    *RelayStopError
			)
			got := "none"
			switch {
			case errors.As(err, &stale):
				got = "stale"
			case errors.As(err, &miss):
				got = "miss"
			case errors.As(err, &restart):
				got = "restart"
				if restart.hint != 3*time.Second {
					t.Fatalf("hint %v", restart.hint)
				}
			case errors.As(err, &stop):
				got = "stop"
				var ec attachwire.ErrorControl
				if !errors.As(err, &ec) || ec != tc.ctl {
					t.Fatalf("RelayStopError does not unwrap to the control: %v", err)
				}
			case err != nil:
				got = "other: " + err.Error()
			}
			if got != tc.want {
				t.Fatalf("classifyControl = %s (%v), want %s", got, err, tc.want)
			}
		})
	}
}

func TestHostConfigDefaultsAndRefusals(t *testing.T) {
	ok := HostConfig{
		AttachURL:   "ws://127.0.0.1:1/v1/rooms/r",
		TokenSource: func(context.Context) (string, error) { return "", nil },
		Session:     nilSession{},
	}
	c, err := ok.withDefaults()
	if err != nil {
		t.Fatal(err)
	}
	if c.BackoffMin != 250*time.Millisecond || c.BackoffMax != 30*time.Second || c.DialTimeout != 15*time.Second ||
		c.WriteTimeout != 10*time.Second || c.ReadLimit != 16<<20 || c.FinalScreenWindow != 60*time.Second ||
		c.EpochStaleMaxRetries != 8 || c.EpochStaleRetryWindow != 2*time.Minute || c.EpochStaleStableWindow != 30*time.Second ||
		c.Logger == nil || c.HTTPClient == nil || c.Kill == nil {
		t.Fatalf("defaults: %+v", c)
	}
	for _, tc := range []struct {
		name   string
		modify func(*HostConfig)
		want   string
	}{
		{"no URL", func(c *HostConfig) { c.AttachURL = "" }, "AttachURL is required"},
		{"http URL", func(c *HostConfig) { c.AttachURL = "http://x/v1/rooms/r" }, "want ws or wss"},
		{"no token source", func(c *HostConfig) { c.TokenSource = nil }, "TokenSource"},
		{"no session", func(c *HostConfig) { c.Session = nil }, "Session"},
		{"client timeout", func(c *HostConfig) { c.HTTPClient = &http.Client{Timeout: time.Second} }, "Timeout"},
		{"negative", func(c *HostConfig) { c.DialTimeout = -1 }, "negative"},
		{"min above max", func(c *HostConfig) { c.BackoffMin, c.BackoffMax = time.Second, time.Millisecond }, "above BackoffMax"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c := ok
			tc.modify(&c)
			_, err := c.withDefaults()
			if !errors.Is(err, ErrInvalidConfig) || !strings.Contains(err.Error(), tc.want) {
				t.Fatalf("withDefaults = %v, want ErrInvalidConfig mentioning %q", err, tc.want)
			}
			if err := RunHost(context.Background(), c); !errors.Is(err, ErrInvalidConfig) {
				t.Fatalf("RunHost = %v", err)
			}
		})
	}
}

func TestReadHostClaims(t *testing.T) {
	jwt := func(payload string) string {
		return "eyJhbGciOiJFZERTQSJ9." + b64(payload) + ".c2ln"
	}
	c, err := readHostClaims(jwt(`{"sessionId":"s1","epoch":7,"role":"host"}`))
	if err != nil || c.SessionID != "s1" || c.Epoch == nil || *c.Epoch != 7 {
		t.Fatalf("readHostClaims = %+v, %v", c, err)
	}
	for _, bad := range []string{
		"not-a-jwt",
		"a.b",
		"a.%%%.c",
		jwt(`[1,2]`),
		jwt(`{"epoch":1}`),
		jwt(`{"sessionId":"s1","userId":"u"}`),
		jwt(`{"sessionId":"s1","epoch":"7"}`),
	} {
		if _, err := readHostClaims(bad); !errors.Is(err, ErrBadToken) {
			t.Errorf("readHostClaims(%q) = %v, want ErrBadToken", bad, err)
		}
	}
}

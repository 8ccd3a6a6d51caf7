package viewer

import (
	"errors"
	"math/rand/v2"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/coder/websocket"
)

// backoff is the wait before redial attempt n (0-based): equal jitter
// over min·2ⁿ capped at max (half fixed, half random), or the relay's
// hint when longer, clamped to max.
func backoff(minD, maxD time.Duration, n int, hint time.Duration) time.Duration {
	d := minD
	for i := 0; i < n && d < maxD; i++ {
		d *= 2
	}
	d = min(d, maxD)
	d = d/2 + rand.N(d/2+1)
	return min(max(d, hint), maxD)
}

// retryAfterError is a dial the relay answered with 429 or 503: retry
// after the hint.
type retryAfterError struct {
	status int
	after  time.Duration
}

func (e *retryAfterError) Error() string {
	return "viewer: relay busy: HTTP " + strconv.Itoa(e.status) + ", retry after " + e.after.String()
}

// Is makes a busy relay count as unreachable for the first dial.
func (e *retryAfterError) Is(target error) bool { return target == ErrUnreachable }

// classifyDial turns a failed handshake into a final refusal (401, 403,
// 404), a hinted retry (429, 503) or an unreachable relay.
func classifyDial(resp *http.Response, err error) error {
	if resp == nil {
		return &dialError{err}
	}
	switch resp.StatusCode {
	case http.StatusUnauthorized, http.StatusForbidden, http.StatusNotFound, http.StatusBadRequest:
		return &RefusedError{Status: resp.StatusCode}
	case http.StatusTooManyRequests, http.StatusServiceUnavailable:
		secs, _ := strconv.Atoi(resp.Header.Get("Retry-After"))
		return &retryAfterError{status: resp.StatusCode, after: time.Duration(min(max(secs, 0), 3600)) * time.Second}
	}
	return &dialError{err}
}

// restartHint reads the wait out of a planned restart's close
// ("relay-restarting: redial after Ns", or any 1012).
func restartHint(err error) (time.Duration, bool) {
	var ce websocket.CloseError
	if !errors.As(err, &ce) {
		return 0, false
	}
	rest, ok := strings.CutPrefix(ce.Reason, "relay-restarting: redial after ")
	if !ok {
		return 0, ce.Code == websocket.StatusServiceRestart
	}
	secs, err2 := strconv.Atoi(strings.TrimSuffix(rest, "s"))
	if err2 != nil || secs < 0 {
		return 0, true
	}
	return time.Duration(min(secs, 3600)) * time.Second, true
}

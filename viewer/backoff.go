package viewer

import (
	"errors"
	"net/http"
	"strconv"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
)

// backoff is the wait before redial attempt n (0-based), or the relay's
// hint when longer, never past maxD.
func backoff(minD, maxD time.Duration, n int, hint time.Duration) time.Duration {
	return attachwire.Backoff{Min: minD, Max: maxD}.Wait(n, hint)
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
		after, _ := attachwire.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
		return &retryAfterError{status: resp.StatusCode, after: after}
	}
	return &dialError{err}
}

// restartHint reads the wait out of a planned restart's close (any 1012,
// or a reason that announces one).
func restartHint(err error) (time.Duration, bool) {
	var ce websocket.CloseError
	if !errors.As(err, &ce) {
		return 0, false
	}
	hint, announced := attachwire.ParseRestartReason(ce.Reason)
	return hint, announced || ce.Code == websocket.StatusServiceRestart
}

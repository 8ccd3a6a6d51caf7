package attachclient

import (
	"errors"
	"fmt"
	"net/http"
	"syscall"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
)

// restartError is a planned relay restart, announced by an error control,
// a close or an HTTP 503. Hint is the relay's redial delay, 0 when it gave
// none that parses (or asked for a redial at once).
type restartError struct {
	how  string
	hint time.Duration
}

func (e *restartError) Error() string {
	return fmt.Sprintf("attachclient: relay restarting (%s, redial after %v)", e.how, e.hint)
}

// epochStaleError is a relay epoch-stale refusal; whatever its retryable
// bit says, it is retried within the budget.
type epochStaleError struct{ ctl attachwire.ErrorControl }

func (e *epochStaleError) Error() string {
	return "attachclient: relay refused the epoch: " + e.ctl.Message
}

// ringMissError is a relay ring-miss error: the relay lost the stream's
// state, so the next attach streams from seq 0 again.
type ringMissError struct{ ctl attachwire.ErrorControl }

func (e *ringMissError) Error() string { return "attachclient: relay ring miss: " + e.ctl.Message }

// dialError is a failed handshake, with the HTTP status when there was
// an answer. retryAfter is a 429's Retry-After: the relay's rate limit,
// honoured as a floor on the wait (not a restart).
type dialError struct {
	status     int
	retryAfter time.Duration
	err        error
}

func (e *dialError) Error() string {
	if e.status != 0 {
		return fmt.Sprintf("attachclient: dial: HTTP %d: %v", e.status, e.err)
	}
	return "attachclient: dial: " + e.err.Error()
}

func (e *dialError) Unwrap() error { return e.err }

// notAPathFault reports a dial that failed for want of the relay, not of
// the path: the connection was refused (nothing listens: a relay down or
// restarting) or the relay answered 429 (it is there, and busy). Neither
// is a path that blocks WebSocket, so neither moves the host to the
// degraded lane, whose requests would meet the same relay.
func (e *dialError) notAPathFault() bool {
	return errors.Is(e.err, syscall.ECONNREFUSED) || e.status == http.StatusTooManyRequests
}

// classifyDial turns a failed handshake into a restart when the relay
// answered 503 with a Retry-After that parses, else a dialError.
func classifyDial(resp *http.Response, err error) error {
	if resp == nil {
		return &dialError{err: err}
	}
	hint, ok := attachwire.ParseRetryAfter(resp.Header.Get("Retry-After"), time.Now())
	switch {
	case ok && resp.StatusCode == http.StatusServiceUnavailable:
		return &restartError{how: "HTTP 503", hint: hint}
	case ok && resp.StatusCode == http.StatusTooManyRequests:
		return &dialError{status: resp.StatusCode, retryAfter: hint, err: err}
	}
	return &dialError{status: resp.StatusCode, err: err}
}

// classifyClose turns the error that ended a read into a restart when the
// relay closed with 1012, or with any code whose reason starts
// "relay-restarting:"; other errors are returned as they are.
func classifyClose(err error) error {
	var ce websocket.CloseError
	if !errors.As(err, &ce) {
		return err
	}
	hint, announced := attachwire.ParseRestartReason(ce.Reason)
	if ce.Code != websocket.StatusServiceRestart && !announced {
		return err
	}
	return &restartError{how: fmt.Sprintf("close %d", ce.Code), hint: hint}
}

// classifyControl turns a relay error control into what ends the leg, or
// nil for a retryable error that does not (it is only logged).
func classifyControl(c attachwire.ErrorControl) error {
	switch c.Code {
	case attachwire.CodeEpochStale:
		return &epochStaleError{ctl: c}
	case attachwire.CodeRingMiss:
		return &ringMissError{ctl: c}
	case attachwire.CodeRelayRestarting:
		hint, _ := attachwire.ParseRedialAfter(c.Message)
		return &restartError{how: "error control", hint: hint}
	}
	if !c.Retryable {
		return &RelayStopError{Control: c}
	}
	return nil
}

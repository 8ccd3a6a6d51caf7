package viewer

import (
	"errors"
	"fmt"
	"net/http"

	"github.com/ptyhost/ptyhost/attachwire"
)

// Sentinels for the conditions callers branch on.
var (
	// ErrConfig is matched by Dial's error for a Config it cannot use.
	ErrConfig = errors.New("viewer: bad configuration")
	// ErrUnreachable is matched when the relay could not be reached (no
	// answer, a network error, an unexpected HTTP answer).
	ErrUnreachable = errors.New("viewer: relay unreachable")
	// ErrRefused is matched by every *RefusedError: the relay turned this
	// leg away for good (bad token, no such room, wrong role).
	ErrRefused = errors.New("viewer: refused by the relay")
	// ErrNoPen is Input's error when this leg does not hold the pen.
	ErrNoPen = errors.New("viewer: this leg does not hold the pen")
	// ErrViewerRole is Grab's error for a leg whose token is read-only.
	ErrViewerRole = errors.New("viewer: a viewer token cannot take the pen")
	// ErrNotProposer is Propose's error for a token without the prop
	// claim: its input needs no approval (it takes the pen and types).
	ErrNotProposer = errors.New("viewer: this token types directly; it does not propose")
	// ErrInputFull is Input's error when MaxPendingInput bytes wait for
	// their acknowledgement.
	ErrInputFull = errors.New("viewer: too much input waiting for its acknowledgement")
	// ErrClosed is returned by the methods of a Client that has ended.
	ErrClosed = errors.New("viewer: client closed")
)

// RefusedError is a relay's final refusal: an HTTP status before the
// upgrade (400, 401, 403, 404) or a non-retryable error control after it.
// It matches ErrRefused. It is a plain value.
type RefusedError struct {
	// Status is the HTTP status of a refused handshake, 0 after the upgrade.
	Status int
	// Code and Message are the error control's, made displayable; empty
	// for an HTTP refusal.
	Code    attachwire.ErrorCode
	Message string
}

func (e *RefusedError) Error() string {
	if e.Status != 0 {
		return fmt.Sprintf("viewer: refused by the relay: HTTP %d %s", e.Status, http.StatusText(e.Status))
	}
	return fmt.Sprintf("viewer: refused by the relay: %s: %s", e.Code, e.Message)
}

// Is reports whether target is ErrRefused.
func (e *RefusedError) Is(target error) bool { return target == ErrRefused }

// dialError is a dial that did not reach a relay that answers; it matches
// ErrUnreachable.
type dialError struct{ err error }

func (e *dialError) Error() string        { return "viewer: relay unreachable: " + e.err.Error() }
func (e *dialError) Unwrap() error        { return e.err }
func (e *dialError) Is(target error) bool { return target == ErrUnreachable }

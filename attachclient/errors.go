package attachclient

import (
	"errors"

	"github.com/ptyhost/ptyhost/attachwire"
)

var (
	// ErrEpochStale is returned by RunHost when the relay keeps refusing
	// the host's epoch past the retry budget, or at once when the
	// TokenSource grants an epoch above the session's (a successor host
	// owns the room).
	ErrEpochStale = errors.New("attachclient: host epoch is stale")

	// ErrInvalidConfig is matched by the error RunHost returns for a
	// HostConfig it rejects before dialling.
	ErrInvalidConfig = errors.New("attachclient: invalid config")

	// ErrBadToken is matched by the error RunHost returns when a host
	// token cannot be used: not a JWT, no sessionId or epoch, or a
	// sessionId other than the first token's.
	ErrBadToken = errors.New("attachclient: unusable host token")
)

// RelayStopError is returned by RunHost when the relay ends the host leg
// with a non-retryable error other than epoch-stale or ring-miss (the
// session revoked, the room deleted). Control is the relay's error
// control, which Unwrap returns.
type RelayStopError struct {
	Control attachwire.ErrorControl
}

// Error names the relay's code and message.
func (e *RelayStopError) Error() string {
	return "attachclient: relay stopped the host leg: " + string(e.Control.Code) + ": " + e.Control.Message
}

// Unwrap returns the relay's error control.
func (e *RelayStopError) Unwrap() error { return e.Control }

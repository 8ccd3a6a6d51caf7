package termdriver

import (
	"errors"
	"fmt"
)

var (
	// ErrUnknownSession is matched by the error a Driver returns for a
	// session ID it does not hold (never started, or stopped).
	ErrUnknownSession = errors.New("termdriver: unknown session")

	// ErrTooManySessions is returned by Start when the Driver holds
	// Options.MaxSessions sessions already.
	ErrTooManySessions = errors.New("termdriver: too many sessions")

	// ErrClosed is returned by Start after Close.
	ErrClosed = errors.New("termdriver: driver closed")

	// ErrInputPending is matched by the error Type returns when its
	// context ended before the program took all the input: the rest is
	// still written, in order, as the program reads.
	ErrInputPending = errors.New("termdriver: the program is not reading its input")
)

// unknownSession wraps ErrUnknownSession with the ID asked for.
func unknownSession(id string) error {
	return fmt.Errorf("%w %q", ErrUnknownSession, id)
}

package attachwire

import (
	"errors"
	"fmt"
	"io"
)

// FramingError reports bytes that do not follow interactive-attach-v1: a
// reserved frame type, a malformed or overflowing uvarint, a length that
// exceeds the input, trailing bytes, an invalid field value. Every decoder
// in this package reports malformed input as a *FramingError; find it with
// errors.As. Encoders return one too when asked to write a value the wire
// cannot carry (a Resize with 0 columns, an invalid Screen).
//
// A FramingError is an immutable value, safe to share between goroutines.
type FramingError struct {
	// Reason says what is wrong, naming the field: "resize cols is 0".
	Reason string
	// Err is the underlying cause, or nil. Truncated input carries
	// io.ErrUnexpectedEOF, so errors.Is(err, io.ErrUnexpectedEOF) holds
	// for every "input ends too early" case.
	Err error
}

// Error returns "attachwire: " followed by the reason and the cause.
func (e *FramingError) Error() string {
	if e.Err == nil {
		return "attachwire: " + e.Reason
	}
	return "attachwire: " + e.Reason + ": " + e.Err.Error()
}

// Unwrap returns the cause, or nil.
func (e *FramingError) Unwrap() error { return e.Err }

// framingf returns a *FramingError with a formatted reason.
func framingf(format string, args ...any) error {
	return &FramingError{Reason: fmt.Sprintf(format, args...)}
}

// truncated returns the *FramingError for input that ends inside what.
func truncated(what string) error {
	return &FramingError{Reason: "truncated " + what, Err: io.ErrUnexpectedEOF}
}

// ErrRingMiss reports that a subscription cursor is not inside a host's
// ring buffer: the frames after it have been evicted (the cursor fell off
// the ring's tail) or it is ahead of the newest frame published. The
// subscriber recovers by taking a fresh snapshot and resuming from its
// atSeq. On the wire the condition travels as an error control with code
// CodeRingMiss. Package agent re-exports this same value, so errors.Is
// matches with either name.
var ErrRingMiss = errors.New("attachwire: ring miss")

// ErrUnknownControl is the sentinel an *UnknownControlError matches with
// errors.Is: a well-formed control frame whose "type" this package does not
// know. It is not a framing error; a receiver may log and skip the frame.
var ErrUnknownControl = errors.New("attachwire: unknown control type")

// UnknownControlError is returned by DecodeControl for a control whose
// "type" is not defined by interactive-attach-v1 (or not known to this
// version of the package). errors.Is(err, ErrUnknownControl) holds.
type UnknownControlError struct {
	// Type is the "type" member as sent.
	Type string
}

// Error names the unknown type.
func (e *UnknownControlError) Error() string {
	return fmt.Sprintf("attachwire: unknown control type %q", e.Type)
}

// Is reports whether target is ErrUnknownControl.
func (e *UnknownControlError) Is(target error) bool { return target == ErrUnknownControl }

package ptyhost

import (
	"errors"
	"fmt"
)

var (
	// ErrExited is returned by methods that act on the child (input,
	// resize, markers) once the session has published its Exit frame.
	ErrExited = errors.New("ptyhost: session has exited")

	// ErrInvalidSpec is matched by every error Spawn returns for a Spec it
	// rejects before starting anything.
	ErrInvalidSpec = errors.New("ptyhost: invalid spec")

	// ErrBadGeometry is matched by a *GeometryError.
	ErrBadGeometry = errors.New("ptyhost: bad geometry")

	// ErrReadOnly is returned by the driving methods of a read-only
	// attach: only the driver may send input or resize.
	ErrReadOnly = errors.New("ptyhost: attach is read-only")

	// ErrSubscriptionClosed is returned by Subscription.Next after Close.
	ErrSubscriptionClosed = errors.New("ptyhost: subscription closed")

	// ErrUnsupported is returned when the platform or the requested
	// terminal backend is not available.
	ErrUnsupported = errors.New("ptyhost: unsupported")
)

// GeometryError reports a terminal size outside the bounds ptyhost accepts:
// columns in 1..MaxCols, rows in 1..MaxRows, pixel sizes in 0..MaxPixels.
// errors.Is(err, ErrBadGeometry) holds for it.
type GeometryError struct {
	Cols, Rows        int
	PxWidth, PxHeight int
}

// Error describes the rejected size.
func (e *GeometryError) Error() string {
	return fmt.Sprintf("ptyhost: bad geometry %dx%d (%dx%d px): want 1..%d cols, 1..%d rows, 0..%d px",
		e.Cols, e.Rows, e.PxWidth, e.PxHeight, MaxCols, MaxRows, MaxPixels)
}

// Is reports whether target is ErrBadGeometry.
func (e *GeometryError) Is(target error) bool { return target == ErrBadGeometry }

// specError wraps a reason in an error that matches ErrInvalidSpec.
func specError(format string, args ...any) error {
	return fmt.Errorf("%w: "+format, append([]any{ErrInvalidSpec}, args...)...)
}

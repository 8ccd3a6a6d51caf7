package token

import "errors"

// ErrInvalid is wrapped by every refusal of Verifier.Verify.
var ErrInvalid = errors.New("token: invalid")

// ErrExpired is wrapped, besides ErrInvalid, by the refusal of a token
// whose exp (plus leeway) has passed: the caller's cue to mint a fresh one.
var ErrExpired = errors.New("token: expired")

// VerifyError is a refused token. Its message names the broken rule and
// never holds any part of the token, so it is safe to log and to send to
// the client. It matches ErrInvalid, ErrExpired when the token expired, and
// ErrClaims when the claim set has the wrong shape. It is immutable and
// safe to share between goroutines.
type VerifyError struct {
	// Reason says which rule the token broke: "expired", "alg is not EdDSA",
	// "claims: host token with userId".
	Reason string

	expired bool
	cause   error // one of this package's own errors, or nil
}

// Error returns "token: invalid: " and the reason.
func (e *VerifyError) Error() string { return "token: invalid: " + e.Reason }

// Unwrap returns ErrInvalid, ErrExpired for an expired token, and the
// package-level cause (ErrClaims's chain) when there is one.
func (e *VerifyError) Unwrap() []error {
	errs := []error{ErrInvalid}
	if e.expired {
		errs = append(errs, ErrExpired)
	}
	if e.cause != nil {
		errs = append(errs, e.cause)
	}
	return errs
}

func invalid(reason string) error { return &VerifyError{Reason: reason} }

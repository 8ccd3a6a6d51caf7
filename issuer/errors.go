package issuer

import (
	"errors"
	"net/http"
)

// Code names why the issuer refused a request; it is the "error" member of
// every error body.
type Code string

// The codes the issuer answers with (docs/relay.md, "Issuer mode").
const (
	CodeBadRequest       Code = "bad-request"
	CodeUnauthorized     Code = "unauthorized"
	CodeUnknownKey       Code = "unknown-key"
	CodeChallengeInvalid Code = "challenge-invalid"
	CodeForbidden        Code = "forbidden"
	CodeNotFound         Code = "not-found"
	CodeExpired          Code = "expired"
	CodeRevoked          Code = "revoked"
	CodeFull             Code = "full"
	CodeRateLimited      Code = "rate-limited"
	CodeInternal         Code = "internal"
)

// Sentinels matched with errors.Is against an *Error of the same code.
var (
	ErrBadRequest       = &Error{Code: CodeBadRequest}
	ErrUnauthorized     = &Error{Code: CodeUnauthorized}
	ErrUnknownKey       = &Error{Code: CodeUnknownKey}
	ErrChallengeInvalid = &Error{Code: CodeChallengeInvalid}
	ErrForbidden        = &Error{Code: CodeForbidden}
	ErrNotFound         = &Error{Code: CodeNotFound}
	ErrExpired          = &Error{Code: CodeExpired}
	ErrRevoked          = &Error{Code: CodeRevoked}
	ErrFull             = &Error{Code: CodeFull}
	ErrRateLimited      = &Error{Code: CodeRateLimited}
)

// Error is a refusal of the issuer: on the wire {"error": Code, "message":
// Message} with Status; from Client, the same decoded.
type Error struct {
	Code    Code
	Message string
	// Status is the HTTP status it came with (Client) or goes with (the
	// server; zero: the code's usual status).
	Status int
}

func (e *Error) Error() string {
	if e.Message == "" {
		return "issuer: " + string(e.Code)
	}
	return "issuer: " + string(e.Code) + ": " + e.Message
}

// Is matches another *Error of the same code, so that the sentinels work
// with errors.Is.
func (e *Error) Is(target error) bool {
	var t *Error
	return errors.As(target, &t) && t.Code == e.Code
}

// refusal returns an *Error of code saying msg.
func refusal(code Code, msg string) *Error { return &Error{Code: code, Message: msg} }

// status is the HTTP status an error of code goes with.
func (e *Error) status() int {
	if e.Status != 0 {
		return e.Status
	}
	switch e.Code {
	case CodeBadRequest:
		return http.StatusBadRequest
	case CodeUnauthorized, CodeUnknownKey, CodeChallengeInvalid:
		return http.StatusUnauthorized
	case CodeForbidden, CodeRevoked:
		return http.StatusForbidden
	case CodeNotFound:
		return http.StatusNotFound
	case CodeExpired:
		return http.StatusGone
	case CodeFull:
		return http.StatusConflict
	case CodeRateLimited:
		return http.StatusTooManyRequests
	}
	return http.StatusInternalServerError
}

//go:build js && wasm

package main

import (
	"syscall/js"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
)

// init registers ptyhostRetryAfter(value), the page's reading of a
// Retry-After header: the one Go parser every peer uses, against the
// browser's clock. It returns the wait in milliseconds, or -1 when the
// value is absent or does not parse.
func init() {
	js.Global().Set("ptyhostRetryAfter", js.FuncOf(func(_ js.Value, args []js.Value) any {
		if len(args) == 0 || args[0].Type() != js.TypeString {
			return -1
		}
		d, ok := attachwire.ParseRetryAfter(args[0].String(), time.Now())
		if !ok {
			return -1
		}
		return d.Milliseconds()
	}))
}

// pageBackoff is the page's wait between redials, the same rule as the Go
// peers' (attachwire.Backoff) with the page's bounds.
var pageBackoff = attachwire.Backoff{Min: 250 * time.Millisecond, Max: 30 * time.Second}

// init registers ptyhostBackoff(attempt, atLeastMs): the wait in
// milliseconds before redial number attempt (0-based), at least atLeastMs
// (a Retry-After), never more than the backoff's maximum.
func init() {
	js.Global().Set("ptyhostBackoff", js.FuncOf(func(_ js.Value, args []js.Value) any {
		hint := time.Duration(argInt(args, 1)) * time.Millisecond
		return pageBackoff.Wait(argInt(args, 0), hint).Milliseconds()
	}))
}

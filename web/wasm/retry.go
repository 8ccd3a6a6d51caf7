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

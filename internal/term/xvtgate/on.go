//go:build ptyhost_xvt

package xvtgate

import (
	"github.com/ptyhost/ptyhost/internal/term"
	"github.com/ptyhost/ptyhost/internal/term/xvt"
)

// Built reports whether this binary links the x/vt backend.
const Built = true

// New returns an x/vt terminal with opts.
func New(opts term.Options) (term.Terminal, error) {
	t, err := xvt.New(opts)
	if err != nil {
		return nil, err
	}
	return t, nil
}

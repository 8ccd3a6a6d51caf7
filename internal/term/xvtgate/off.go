//go:build !ptyhost_xvt

package xvtgate

import "github.com/ptyhost/ptyhost/internal/term"

// Built reports whether this binary links the x/vt backend.
const Built = false

// New returns an error matching ErrNotBuilt: this binary was built without
// the ptyhost_xvt tag.
func New(term.Options) (term.Terminal, error) { return nil, ErrNotBuilt }

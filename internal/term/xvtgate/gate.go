package xvtgate

import "errors"

// Tag is the build tag that links the x/vt backend.
const Tag = "ptyhost_xvt"

// ErrNotBuilt is matched by the error New returns in a binary built
// without the ptyhost_xvt tag.
var ErrNotBuilt = errors.New("xvtgate: the xvt backend is not built in (build with -tags " + Tag + ")")

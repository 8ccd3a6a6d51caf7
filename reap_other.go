//go:build !linux

package ptyhost

import "github.com/ptyhost/ptyhost/attachwire"

// awaitExit cannot wait without reaping on this platform (no waitid
// WNOWAIT in golang.org/x/sys here): the caller reaps at once, and a
// process group that outlives its leader is left alone.
func awaitExit(int) (attachwire.Exit, bool) { return attachwire.Exit{}, false }

// groupHasOthers is only asked about a pinned group, which this platform
// never has.
func groupHasOthers(int) bool { return false }

// Package version is the one source of ptyhost's version: what
// `ptyhost version` prints and what the host's terminal puts in its
// XTVERSION answer.
//
// The version comes from the build information the go command records.
// When ptyhost is the main module (the CLI, built in this repository or
// installed with go install), that is the main module's version; when
// ptyhost is a library in someone else's program, it is the version of
// the ptyhost dependency (of its replacement, if go.mod replaces it).
// Without a version (a build from a work tree), it is "devel", followed
// by the first 12 hex digits of the VCS revision when the go command
// stamped one.
//
// Concurrency: String is safe for concurrent use.
package version

import (
	"runtime/debug"
	"sync"
)

// Module is ptyhost's module path, which the version is looked up by.
const Module = "github.com/ptyhost/ptyhost"

// devel is the version of a build that records none.
const devel = "devel"

// cached computes the version once: the build information cannot change
// while the program runs.
var cached = sync.OnceValue(func() string { return FromBuildInfo(debug.ReadBuildInfo()) })

// String returns ptyhost's version, as the package comment describes.
func String() string { return cached() }

// FromBuildInfo returns the version bi records for ptyhost; ok is what
// debug.ReadBuildInfo returned with bi (false: no build information).
func FromBuildInfo(bi *debug.BuildInfo, ok bool) string {
	if !ok || bi == nil {
		return devel
	}
	if bi.Main.Path == Module {
		v := stamped(bi.Main.Version)
		if v == devel {
			for _, s := range bi.Settings {
				if s.Key == "vcs.revision" && len(s.Value) >= 12 {
					v += "-" + s.Value[:12]
				}
			}
		}
		return v
	}
	for _, d := range bi.Deps {
		if d.Path != Module {
			continue
		}
		if d.Replace != nil {
			return stamped(d.Replace.Version)
		}
		return stamped(d.Version)
	}
	return devel
}

// stamped returns v, or devel when the go command recorded no version.
func stamped(v string) string {
	if v == "" || v == "(devel)" {
		return devel
	}
	return v
}

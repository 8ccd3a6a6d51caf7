//go:build unix && !linux

package sigdfl

import "os"

// selfExe names the running executable.
func selfExe() (string, error) { return os.Executable() }

// Ignored reports whether os/signal knows of an ignored signal (see
// ignoredByRuntime); without /proc an inherited SIG_IGN of a signal the Go
// runtime leaves alone (SIGTSTP, SIGTTOU, ...) goes unseen.
func Ignored() bool { return ignoredByRuntime() }

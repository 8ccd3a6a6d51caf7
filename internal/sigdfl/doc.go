// Package sigdfl starts a child with every signal at its default
// disposition, whatever its parent ignores.
//
// A Go program's child inherits the signals the program ignores: os/exec
// (like fork and execve) resets only the signals the parent catches. A
// host started under nohup, or as a background job of a non-interactive
// shell, ignores SIGHUP or SIGINT and SIGQUIT, and so would every program
// it spawned: a shell in a PTY session would shrug off the SIGHUP that
// ends a session. Go's syscall.SysProcAttr has no per-child setting for
// this (posix_spawn's POSIX_SPAWN_SETSIGDEF has no equivalent), and
// un-ignoring in the parent around the fork would change the whole
// process's dispositions, racing with its other goroutines and with the
// program's own os/signal calls.
//
// So the reset is per child, by a re-exec: Start runs the host's own
// executable with a marker in its environment and the real command in its
// argv. This package's init, in that short-lived process, sees the
// marker, catches every signal (os/signal.Notify with no signals) so that
// the next execve resets them all to SIG_DFL, removes the marker and execs
// the real command. Everything the first exec applied (the new session,
// the controlling terminal, the working directory, the file descriptors)
// is kept by the second, and the pid is the same. Start returns only once
// the second exec has happened (a close-on-exec pipe tells it, and carries
// the errno of a failed exec), so no signal its caller sends afterwards
// can land in the trampoline. A host that ignores no signal (Ignored)
// starts the command directly.
//
// Limits: a signal a third party sends during the trampoline's few
// milliseconds is caught and lost. The re-executed binary runs the init
// functions of the packages initialized before this one. A set-user-ID or
// set-group-ID process is never re-executed (its children keep what it
// ignores), and refuses to act as a trampoline (it would exec whatever its
// argv names with borrowed rights). A stray marker without the report pipe
// is ignored. Signals the Go runtime never lets a program catch (SIGKILL,
// SIGSTOP, and on Linux the C library's 32 and 33) keep the parent's
// disposition.
package sigdfl

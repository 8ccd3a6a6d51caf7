//go:build unix

package sigdfl

import (
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"os/signal"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
)

// markerEnv is the environment entry that makes a re-executed host run the
// trampoline; its value is irrelevant, its presence is what counts.
const markerEnv = "PTYHOST_SIGDFL_EXEC"

// trampolineName is argv[0] of the trampoline, what ps shows for the
// moment before the second exec.
const trampolineName = "ptyhost-sigdfl"

// reportFD is the trampoline's end of the pipe that tells Start how the
// second exec went: the first of exec.Cmd's ExtraFiles.
const reportFD = 3

// execWait bounds how long Start waits for the trampoline's exec: the
// re-executed host's start-up and package init functions.
const execWait = 10 * time.Second

func init() {
	if _, ok := os.LookupEnv(markerEnv); !ok || len(os.Args) < 3 || !reportPipe() {
		return // not started by Start: a stray marker changes nothing
	}
	if setID() {
		// Start never re-executes a set-id process, so this environment
		// was forged: never exec what it names with borrowed rights.
		os.Stderr.WriteString("ptyhost: refusing to run as a trampoline with set-id rights\n")
		os.Exit(126)
	}
	os.Exit(trampoline(os.Args[1], os.Args[2:]))
}

// reportPipe reports whether reportFD is a pipe, as Start leaves it.
func reportPipe() bool {
	var st syscall.Stat_t
	return syscall.Fstat(reportFD, &st) == nil && st.Mode&syscall.S_IFMT == syscall.S_IFIFO
}

// setID reports whether this process runs with borrowed user or group
// rights (a set-user-ID or set-group-ID executable).
func setID() bool {
	return os.Getuid() != os.Geteuid() || os.Getgid() != os.Getegid()
}

// trampoline execs path with args and the environment minus the marker,
// every signal caught first so that execve resets it to SIG_DFL. The
// report pipe is close-on-exec: a successful exec closes it empty. It
// returns only when the exec fails, after writing the errno to the pipe,
// with the shell's exit status for the failure (Start reaps it).
func trampoline(path string, args []string) int {
	env := slices.DeleteFunc(os.Environ(), func(kv string) bool {
		return strings.HasPrefix(kv, markerEnv+"=")
	})
	syscall.CloseOnExec(reportFD)
	signal.Notify(make(chan os.Signal, 1))
	err := syscall.Exec(path, args, env)
	var errno syscall.Errno
	if !errors.As(err, &errno) {
		errno = syscall.EINVAL
	}
	report := os.NewFile(reportFD, "sigdfl-report")
	report.WriteString(strconv.Itoa(int(errno)))
	report.Close()
	if errno == syscall.ENOENT {
		return 127
	}
	return 126
}

// Start starts cmd (Path, Args and Env naming the real program) with every
// signal at its default disposition. A process that ignores no signal
// starts cmd as it is. Otherwise cmd is rewritten to run this process's
// own executable as the trampoline, with the real program in its argv, a
// marker in its environment and a report pipe in ExtraFiles (which must be
// empty), and Start returns once the trampoline has exec'd the real
// program (same pid), so no signal sent after Start returns can reach the
// trampoline. A failed second exec is returned as its errno (errors.Is
// fs.ErrNotExist and the like work) after the trampoline is reaped.
//
// fallback is non-nil when the trampoline was needed but cannot be used
// (this process's executable cannot be named, or it runs set-id): cmd was
// then started directly and its child inherits the ignored signals.
func Start(cmd *exec.Cmd) (fallback, err error) {
	if !Ignored() {
		return nil, cmd.Start()
	}
	if setID() {
		return errors.New("sigdfl: a set-id process does not re-execute itself"), cmd.Start()
	}
	exe, err := selfExe()
	if err != nil {
		return fmt.Errorf("sigdfl: find own executable: %w", err), cmd.Start()
	}
	if len(cmd.ExtraFiles) != 0 {
		return nil, errors.New("sigdfl: cmd has ExtraFiles")
	}
	r, w, err := os.Pipe()
	if err != nil {
		return nil, fmt.Errorf("sigdfl: report pipe: %w", err)
	}
	defer r.Close()
	cmd.Args = slices.Concat([]string{trampolineName, cmd.Path}, cmd.Args)
	cmd.Path = exe
	env := cmd.Env
	if env == nil {
		env = os.Environ() // what exec.Cmd would have given the program
	}
	cmd.Env = append(env[:len(env):len(env)], markerEnv+"=1")
	cmd.ExtraFiles = []*os.File{w}
	err = cmd.Start()
	w.Close()
	if err != nil {
		return nil, err
	}
	if err := awaitExec(r, cmd.Args[1]); err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, err
	}
	return nil, nil
}

// awaitExec reads the trampoline's report: end of file means the real
// program runs, an errno that its exec failed.
func awaitExec(r *os.File, path string) error {
	r.SetReadDeadline(time.Now().Add(execWait))
	msg, err := io.ReadAll(r)
	if err != nil {
		return fmt.Errorf("sigdfl: wait for the trampoline's exec: %w", err)
	}
	if len(msg) == 0 {
		return nil
	}
	n, err := strconv.Atoi(string(msg))
	if err != nil {
		return fmt.Errorf("sigdfl: trampoline reported %q", msg)
	}
	return &os.PathError{Op: "exec", Path: path, Err: syscall.Errno(n)}
}

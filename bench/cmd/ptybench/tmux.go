package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"time"
)

// tmuxHost runs the workload in a private tmux server (its own -L socket,
// -f /dev/null, history-limit = -scrollback) with one detached session at
// -cols × -rows. The pane runs
//
//	tmux wait-for -S ready; tmux wait-for go; cat FILE; tmux wait-for -S done
//
// so the server, the session and the pane's shell are up before the clock
// starts. The clock runs from signalling "go" to "done" coming back: by then
// the server has read and parsed into its grid everything cat wrote except
// at most one PTY buffer (a few KiB). No client is attached, so nothing is
// redrawn to a terminal: this is tmux's emulation cost, as ptyhost's is.
// The CPU time is the server process's over the same span.
type tmuxHost struct {
	bin    string
	socket string
}

func newTmuxHost() (*tmuxHost, error) {
	bin, err := exec.LookPath("tmux")
	if err != nil {
		return nil, fmt.Errorf("tmux not installed (apt-get install tmux): %w", err)
	}
	return &tmuxHost{bin: bin, socket: fmt.Sprintf("ptybench-%d", os.Getpid())}, nil
}

func (t *tmuxHost) cmd(ctx context.Context, args ...string) *exec.Cmd {
	c := exec.CommandContext(ctx, t.bin, append([]string{"-L", t.socket}, args...)...)
	c.Env = append(os.Environ(), "TMUX=") // never talk to an enclosing tmux
	return c
}

func (t *tmuxHost) tmux(ctx context.Context, args ...string) error {
	out, err := t.cmd(ctx, args...).CombinedOutput()
	if err != nil {
		return fmt.Errorf("tmux %s: %w: %s", strings.Join(args, " "), err, bytes.TrimSpace(out))
	}
	return nil
}

// run measures one pass of the workload through a fresh tmux server.
func (t *tmuxHost) run(ctx context.Context, cfg config, wl workload) (sample, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	defer t.kill()
	self := shellQuote(t.bin) + " -L " + shellQuote(t.socket)
	script := self + " wait-for -S ready; " + self + " wait-for go; cat " +
		shellQuote(wl.path) + "; " + self + " wait-for -S done"
	err := t.tmux(ctx, "-f", "/dev/null", "start-server", ";",
		"set-option", "-g", "history-limit", strconv.Itoa(cfg.scrollback), ";",
		"new-session", "-d", "-s", "bench", "-x", strconv.Itoa(cfg.cols), "-y", strconv.Itoa(cfg.rows),
		"sh", "-c", script)
	if err != nil {
		return sample{}, err
	}
	if err := t.tmux(ctx, "wait-for", "ready"); err != nil {
		return sample{}, err
	}
	pid, err := t.serverPID(ctx)
	if err != nil {
		return sample{}, err
	}
	cpu0, err := procCPU(pid)
	if err != nil {
		return sample{}, err
	}
	start := time.Now()
	if err := t.tmux(ctx, "wait-for", "-S", "go"); err != nil {
		return sample{}, err
	}
	if err := t.tmux(ctx, "wait-for", "done"); err != nil {
		return sample{}, err
	}
	elapsed := time.Since(start)
	cpu1, err := procCPU(pid)
	if err != nil {
		return sample{}, err
	}
	return throughput(wl.size, elapsed, cpu1-cpu0), nil
}

// serverPID asks the private server for its process ID.
func (t *tmuxHost) serverPID(ctx context.Context) (int, error) {
	out, err := t.cmd(ctx, "display-message", "-p", "#{pid}").Output()
	if err != nil {
		return 0, fmt.Errorf("tmux display-message: %w", err)
	}
	return strconv.Atoi(string(bytes.TrimSpace(out)))
}

// kill ends this harness's private tmux server, if it is running.
func (t *tmuxHost) kill() {
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = t.cmd(ctx, "kill-server").Run()
}

// shellQuote quotes s for sh.
func shellQuote(s string) string {
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

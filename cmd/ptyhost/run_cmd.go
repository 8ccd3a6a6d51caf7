package main

import (
	"context"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"

	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/attachwire"
)

type runOptions struct {
	size          sizeFlag
	record        recordFlags
	scrollback    int
	scrollbackSet bool
	ring          int
	backend       backendFlag
	command       []string
}

func parseRun(args []string) (runOptions, error) {
	var o runOptions
	fs := newFlagSet("run")
	addRunFlags(fs, &o)
	return o, parseRunCommand("run", fs, args, &o)
}

// addRunFlags registers the flags that say how CMD runs, for run and the
// commands built on it (share).
func addRunFlags(fs *flag.FlagSet, o *runOptions) {
	fs.Var(&o.size, "size", "")
	o.record.register(fs)
	fs.Var(intFlag{&o.scrollback}, "scrollback", "")
	fs.Var(intFlag{&o.ring}, "ring", "")
	fs.Var(&o.backend, "backend", "")
}

// parseRunCommand parses args against fs (which holds the flags of
// addRunFlags, and maybe more) and checks the run flags' values.
func parseRunCommand(cmd string, fs *flag.FlagSet, args []string, o *runOptions) error {
	command, err := parseCommand(cmd, fs, args)
	if err != nil {
		return err
	}
	o.command = command
	fs.Visit(func(f *flag.Flag) { o.scrollbackSet = o.scrollbackSet || f.Name == "scrollback" })
	switch {
	case o.scrollback < 0 || o.scrollback > ptyhost.MaxScrollback:
		return usagef(cmd, "--scrollback must be in 0..%d", ptyhost.MaxScrollback)
	case o.ring < 0 || o.ring > ptyhost.MaxRingBytes:
		return usagef(cmd, "--ring must be in 0..%d bytes", ptyhost.MaxRingBytes)
	}
	return nil
}

func runCmd(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	o, err := parseRun(args)
	if err != nil {
		return err // flag.ErrHelp too: run prints the help
	}
	a, err := spawnAttached("run", o, stdin, stdout, 0)
	if err != nil {
		return err
	}
	err = a.run(ctx)
	a.reportRecording()
	return err
}

// reportRecording tells the user, once the terminal is theirs again, that
// the --record file is incomplete: a full disk or a failed write stops
// the recording, never the session, and nothing else would say so.
func (a *attachment) reportRecording() {
	if err := a.sess.RecordErr(); err != nil {
		fmt.Fprintf(a.out, "%s: recording stopped, the cast file is incomplete: %v\n", a.cmd,
			strings.TrimPrefix(err.Error(), "ptyhost: "))
	}
}

// spawnAttached spawns o's command for this terminal (stdin must be one)
// at its size, with epoch stamped into its snapshots (0: the host's
// choice), and returns the attachment that drives it from here. cmd
// names the command in messages.
func spawnAttached(cmd string, o runOptions, stdin io.Reader, stdout io.Writer, epoch uint64) (*attachment, error) {
	fd, ok := fileFd(stdin)
	if !ok || !isTerminal(fd) {
		return nil, usagef(cmd, "stdin is not a terminal; to run a program headless use 'ptyhost exec -- CMD'")
	}
	cols, rows, pxW, pxH, err := termSize(fd)
	if err != nil {
		cols, rows, pxW, pxH = 0, 0, 0, 0 // the host's default size
	}
	if o.size.set {
		cols, rows, pxW, pxH = o.size.cols, o.size.rows, 0, 0
	}
	spec := ptyhost.Spec{
		Command:   o.command,
		Cols:      min(cols, ptyhost.MaxCols),
		Rows:      min(rows, ptyhost.MaxRows),
		RingBytes: o.ring,
		// As in exec: a FIFO or device the user named is written in place.
		RecordSpecial: true,
		Backend:       o.backend.b,
		Epoch:         epoch,
	}
	o.record.spec(&spec)
	if o.scrollbackSet {
		spec.Scrollback = o.scrollback
		if o.scrollback == 0 {
			spec.Scrollback = -1 // the host's way of saying "none"
		}
	}
	sess, err := ptyhost.Spawn(spec)
	if err != nil {
		return nil, spawnProblem(cmd, o.command[0], err)
	}
	if pxW > 0 || pxH > 0 {
		sess.Resize(spec.Cols, spec.Rows, min(pxW, ptyhost.MaxPixels), min(pxH, ptyhost.MaxPixels))
	}
	return &attachment{cmd: cmd, fd: fd, out: stdout, sess: sess, fixedSize: o.size.set}, nil
}

// attachment is one run: this terminal attached as the driver of sess.
type attachment struct {
	cmd       string // the command, in messages
	fd        int
	out       io.Writer
	sess      *ptyhost.Session
	fixedSize bool

	raw      *rawTerm
	restored sync.Once
	exit     attachwire.Exit
}

func (a *attachment) run(ctx context.Context) (err error) {
	defer a.stopSession()
	raw, err := makeRaw(a.fd)
	if err != nil {
		return fmt.Errorf("%s: %w", a.cmd, err)
	}
	a.raw = raw
	defer a.restore() // also runs while a panic unwinds this goroutine
	att, err := attachDriver(a.sess)
	if err != nil {
		return &hostError{op: a.cmd + ": attach", err: err}
	}
	defer att.Close()

	pump, err := startInputPump(a.fd, func(p []byte) error {
		_, err := att.WriteInput(p)
		return err
	}, a.guard)
	if err != nil {
		return fmt.Errorf("%s: %w", a.cmd, err)
	}
	// The pump may be blocked writing to a child that does not read: put
	// the terminal back first, then end the session (which releases that
	// write), and only then join the pump.
	defer func() {
		a.restore()
		a.stopSession()
		pump.Stop()
	}()
	stopWinch := a.followResizes(att)
	defer stopWinch()

	if err := a.stream(ctx, att); err != nil {
		return err
	}
	if a.exit.Code != 0 {
		return &exitStatus{code: int(a.exit.Code)}
	}
	return nil
}

// stream paints frames until the Exit frame or ctx's end.
func (a *attachment) stream(ctx context.Context, att driverAttach) error {
	var buf []byte
	for {
		f, err := att.Next(ctx)
		switch {
		case err == io.EOF:
			return nil
		case ctx.Err() != nil:
			return interrupted(ctx)
		case err != nil:
			return fmt.Errorf("%s: %w", a.cmd, err)
		}
		var paint []byte
		switch f.Type {
		case attachwire.TypeOutput:
			paint = f.Payload
		case attachwire.TypeSnapshot:
			snap, err := attachwire.DecodeSnapshot(f.Payload)
			if err != nil {
				return fmt.Errorf("%s: %w", a.cmd, err)
			}
			scr, err := snap.DecodeScreen()
			if err != nil {
				return fmt.Errorf("%s: %w", a.cmd, err)
			}
			buf = appendDriverRepaint(buf[:0], &scr)
			paint = buf
		case attachwire.TypeExit:
			if ex, err := attachwire.DecodeExit(f.Payload); err == nil {
				a.exit = ex
			}
		}
		if len(paint) > 0 {
			if _, err := a.out.Write(paint); err != nil {
				return fmt.Errorf("%s: %w", a.cmd, err)
			}
		}
	}
}

// followResizes applies this terminal's size to the session on SIGWINCH,
// unless --size fixed it. It checks once at the start too, for a resize
// that happened before the handler was in place. The returned function
// stops and joins it.
func (a *attachment) followResizes(att driverAttach) func() {
	sig := resizeSignal()
	if a.fixedSize || sig == nil {
		return func() {}
	}
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, sig)
	ch <- sig
	done := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		defer a.guard()
		cols, rows := a.sess.Size()
		for {
			select {
			case <-ch:
				c, r, pw, ph, err := termSize(a.fd)
				if err != nil {
					continue
				}
				c, r = min(c, ptyhost.MaxCols), min(r, ptyhost.MaxRows)
				if c == cols && r == rows {
					continue
				}
				if _, err := att.Resize(c, r, min(pw, ptyhost.MaxPixels), min(ph, ptyhost.MaxPixels)); err == nil {
					cols, rows = c, r
				}
			case <-done:
				return
			}
		}
	})
	return func() {
		signal.Stop(ch)
		close(done)
		wg.Wait()
	}
}

// restore writes the restore trailer, drops what the terminal sent that
// nobody read (late answers to queries), and leaves raw mode. Once.
func (a *attachment) restore() {
	a.restored.Do(func() {
		io.WriteString(a.out, restoreTrailer)
		flushInput(a.fd)
		a.raw.Restore()
	})
}

// guard restores the terminal if the calling goroutine panics, then lets
// the panic continue.
func (a *attachment) guard() {
	if r := recover(); r != nil {
		a.restore()
		panic(r)
	}
}

// stopSession ends the child if it is still running (ptyhost was
// interrupted, or painting failed), bounded.
func (a *attachment) stopSession() {
	ctx, cancel := context.WithTimeout(context.Background(), stopWatchdog)
	defer cancel()
	a.sess.Stop(ctx)
}

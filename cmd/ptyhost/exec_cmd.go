package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"regexp"
	"sync"
	"time"

	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/attachwire"
)

// Limits on what exec reads from the command line and files.
const (
	maxInputFile = 16 << 20
	maxWait      = 100 * 365 * 24 * time.Hour
	// checkDelay batches --wait-for checks: the screen is matched at most
	// once per checkDelay while output flows, and always once it pauses.
	checkDelay = 20 * time.Millisecond
	// stopWatchdog bounds how long exec waits for the session to end after
	// it stopped the child.
	stopWatchdog = 15 * time.Second
)

type execOptions struct {
	size      sizeFlag
	input     string
	inputFile string
	waitFor   string
	quietFor  time.Duration
	timeout   time.Duration
	format    formatFlag
	frames    string
	record    recordFlags
	backend   backendFlag

	command []string
	pattern *regexp.Regexp
}

func parseExec(args []string) (execOptions, error) {
	o := execOptions{format: formatText}
	fs := newFlagSet("exec")
	fs.Var(&o.size, "size", "")
	fs.StringVar(&o.input, "input", "", "")
	fs.StringVar(&o.inputFile, "input-file", "", "")
	fs.StringVar(&o.waitFor, "wait-for", "", "")
	fs.Var(durationFlag{&o.quietFor}, "quiet-for", "")
	fs.Var(durationFlag{&o.timeout}, "timeout", "")
	fs.Var(&o.format, "format", "")
	fs.StringVar(&o.frames, "frames", "", "")
	o.record.register(fs)
	fs.Var(&o.backend, "backend", "")
	cmd, err := parseCommand("exec", fs, args)
	if err != nil {
		return o, err
	}
	o.command = cmd
	switch {
	case o.quietFor < 0 || o.quietFor > maxWait:
		return o, usagef("exec", "--quiet-for %v is out of range", o.quietFor)
	case o.timeout < 0 || o.timeout > maxWait:
		return o, usagef("exec", "--timeout %v is out of range", o.timeout)
	}
	if o.waitFor != "" {
		// Checked as written, so that an error quotes the user's pattern;
		// then compiled with ^ and $ matching at line boundaries.
		if _, err := regexp.Compile(o.waitFor); err != nil {
			return o, &usageError{cmd: "exec", err: &flagError{name: "wait-for", value: o.waitFor, err: err}}
		}
		o.pattern = regexp.MustCompile("(?m)" + o.waitFor)
	}
	return o, nil
}

// inputBytes returns what exec types: --input with its escapes decoded,
// then the contents of --input-file ("-" is stdin).
func (o *execOptions) inputBytes(stdin io.Reader) ([]byte, error) {
	in, err := parseEscapes(o.input)
	if err != nil {
		return nil, usagef("exec", "--input: %v", err)
	}
	if o.inputFile == "" {
		return in, nil
	}
	r := stdin
	if o.inputFile != "-" {
		f, err := os.Open(o.inputFile)
		if err != nil {
			return nil, usagef("exec", "--input-file: %v", err)
		}
		defer f.Close()
		r = f
	}
	b, err := io.ReadAll(io.LimitReader(r, maxInputFile+1))
	switch {
	case err != nil:
		return nil, usagef("exec", "--input-file: %v", err)
	case len(b) > maxInputFile:
		return nil, usagef("exec", "--input-file: larger than %d bytes", maxInputFile)
	}
	return append(in, b...), nil
}

func execCmd(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	o, err := parseExec(args)
	if err != nil {
		return err // flag.ErrHelp too: run prints the help
	}
	input, err := o.inputBytes(stdin)
	if err != nil {
		return err
	}
	frames, err := openFramesFile(o.frames)
	if err != nil {
		return usagef("exec", "--frames: %v", err)
	}
	spec := ptyhost.Spec{
		Command: o.command,
		Cols:    o.size.cols,
		Rows:    o.size.rows,
		// The user named the path: a FIFO or a device (/dev/stdout) is
		// written in place, as --frames does; the library never removes it.
		RecordSpecial: true,
		Backend:       o.backend.b,
	}
	o.record.spec(&spec)
	sess, err := ptyhost.Spawn(spec)
	if err != nil {
		frames.abort()
		return spawnProblem("exec", o.command[0], err)
	}
	e := &execution{opts: &o, sess: sess, frames: frames}
	return e.run(ctx, input, stdout)
}

// execution is one exec: a session, its frames file, the typist
// goroutine, and what the wait loop saw.
type execution struct {
	opts   *execOptions
	sess   *ptyhost.Session
	frames *framesFile
	sub    interface {
		Next(context.Context) (attachwire.Frame, error)
		Close() error
	}
	exit    attachwire.Exit
	matched bool
}

// outcome is why exec stopped waiting.
type outcome int

const (
	outExited outcome = iota
	outSatisfied
	outTimeout
	outInterrupted
)

func (e *execution) run(ctx context.Context, input []byte, stdout io.Writer) (err error) {
	var typist sync.WaitGroup
	defer func() {
		e.stop()
		typist.Wait()
		if ferr := e.frames.close(); err == nil && ferr != nil {
			err = fmt.Errorf("exec: --frames: %w", ferr)
		}
	}()
	sub, err := e.sess.Subscribe(0)
	if err != nil {
		return &hostError{op: "exec", err: err}
	}
	e.sub = sub
	defer func() { e.sub.Close() }() // next may have replaced it
	if len(input) > 0 {
		// The child may not read its input at all: a blocked write must
		// not keep exec from timing out. Stop closes the PTY, which ends it.
		typist.Go(func() { e.sess.WriteInput(input) })
	}
	out, err := e.wait(ctx)
	if err != nil {
		return err
	}
	// The screen is the one the condition held on (or the timeout or the
	// interrupt saw): taken before stopping the program, which often
	// cleans up its screen when it gets SIGTERM.
	scr, _, err := e.sess.Snapshot()
	if err != nil {
		return &hostError{op: "exec: snapshot", err: err}
	}
	if out == outExited {
		if ex, ok := e.sess.Exit(); ok {
			e.exit = ex
		}
	} else {
		e.stop()
		if err := e.drain(); err != nil {
			return err
		}
	}
	if out == outExited && e.opts.pattern != nil && !e.matched {
		e.matched = e.opts.pattern.MatchString(screenText(&scr))
	}
	if err := writeScreen(stdout, &scr, e.opts.format); err != nil {
		return fmt.Errorf("exec: %w", err)
	}
	switch {
	case out == outInterrupted:
		return interrupted(ctx)
	case out == outTimeout:
		return &timeoutError{after: e.opts.timeout.String(), waiting: e.waitingFor()}
	case out == outSatisfied:
		return nil
	case !e.matched && e.opts.pattern != nil:
		code := int(e.exit.Code)
		if code == 0 {
			code = 1
		}
		return &exitStatus{code: code, msg: fmt.Sprintf("exec: %s exited (%s) before --wait-for matched", e.opts.command[0], exitText(e.exit))}
	case e.exit.Code != 0:
		return &exitStatus{code: int(e.exit.Code)}
	}
	return nil
}

// wait reads frames until the child exits, the wait condition holds, the
// timeout expires or ctx ends.
func (e *execution) wait(ctx context.Context) (outcome, error) {
	o := e.opts
	start := time.Now()
	var deadline, checkAt time.Time
	if o.timeout > 0 {
		deadline = start.Add(o.timeout)
	}
	var lastOutput time.Time // zero until the first output
	e.matched = o.pattern == nil
	if !e.matched {
		checkAt = start
	}
	quietAt := func() time.Time {
		if o.quietFor > 0 && e.matched && !lastOutput.IsZero() {
			return lastOutput.Add(o.quietFor)
		}
		return time.Time{}
	}
	due := func(t, now time.Time) bool { return !t.IsZero() && !now.Before(t) }
	for {
		f, err := e.next(ctx, earliest(deadline, quietAt(), checkAt))
		switch {
		case err == io.EOF:
			return outExited, nil
		case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
			// A timer is due; handled below.
		case ctx.Err() != nil:
			return outInterrupted, nil
		case err != nil:
			return 0, err
		case f.Type == attachwire.TypeOutput:
			lastOutput = time.Now()
			if !e.matched && checkAt.IsZero() {
				checkAt = lastOutput.Add(checkDelay)
			}
		}
		// Timers are checked after every frame too: output that never
		// pauses must not hold off the timeout or the pattern check.
		now := time.Now()
		if due(checkAt, now) {
			checkAt = time.Time{}
			if e.check() && o.quietFor == 0 {
				return outSatisfied, nil
			}
		}
		switch {
		case due(quietAt(), now):
			return outSatisfied, nil
		case due(deadline, now):
			return outTimeout, nil
		}
	}
}

// next returns the next frame, waiting at most until deadline (if set), and
// records it in the frames file. A
// subscription that fell behind resumes from a fresh snapshot unless a
// frames file needs every frame.
func (e *execution) next(ctx context.Context, deadline time.Time) (attachwire.Frame, error) {
	if !deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	f, err := e.sub.Next(ctx)
	if errors.Is(err, attachwire.ErrRingMiss) && e.frames == nil {
		if _, at, serr := e.sess.Snapshot(); serr == nil {
			if sub, serr := e.sess.Subscribe(at); serr == nil {
				e.sub.Close()
				e.sub = sub
				f, err = e.sub.Next(ctx)
			}
		}
	}
	if errors.Is(err, attachwire.ErrRingMiss) {
		return f, fmt.Errorf("exec: fell behind the program's output, the frames file would have a gap: %w", err)
	}
	if err != nil {
		return f, err
	}
	if werr := e.frames.write(f); werr != nil {
		return f, fmt.Errorf("exec: --frames: %w", werr)
	}
	return f, nil
}

// check matches --wait-for against the screen and remembers a match.
func (e *execution) check() bool {
	if e.matched {
		return true
	}
	scr, _, err := e.sess.Snapshot()
	if err == nil && e.opts.pattern.MatchString(screenText(&scr)) {
		e.matched = true
	}
	return e.matched
}

// drain reads the frames the stopped session still publishes, up to its
// Exit frame, so the frames file ends with it.
func (e *execution) drain() error {
	if e.frames == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), stopWatchdog)
	defer cancel()
	for {
		_, err := e.next(ctx, time.Time{})
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return fmt.Errorf("exec: after stopping %s: %w", e.opts.command[0], err)
		}
	}
}

// stop ends the child (SIGTERM, then SIGKILL) and waits, bounded.
func (e *execution) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), stopWatchdog)
	defer cancel()
	e.sess.Stop(ctx)
}

// waitingFor describes the wait condition for the timeout message.
func (e *execution) waitingFor() string {
	o := e.opts
	switch {
	case o.pattern != nil && !e.matched:
		return fmt.Sprintf("waiting for %q to appear", o.waitFor)
	case o.quietFor > 0:
		return fmt.Sprintf("waiting for %v of quiet", o.quietFor)
	}
	return "waiting for " + o.command[0] + " to exit"
}

// earliest returns the earliest non-zero time, or the zero time.
func earliest(ts ...time.Time) time.Time {
	var min time.Time
	for _, t := range ts {
		if !t.IsZero() && (min.IsZero() || t.Before(min)) {
			min = t
		}
	}
	return min
}

// exitText describes an exit status: "status 3" or "SIGKILL, status 137".
func exitText(ex attachwire.Exit) string {
	if ex.Signal != "" {
		return fmt.Sprintf("%s, status %d", ex.Signal, ex.Code)
	}
	return fmt.Sprintf("status %d", ex.Code)
}

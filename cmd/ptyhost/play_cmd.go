package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"time"

	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/sanitize"
	"github.com/ptyhost/ptyhost/internal/cast"
	"github.com/ptyhost/ptyhost/internal/term"
	"github.com/ptyhost/ptyhost/internal/term/engine"
	"github.com/ptyhost/ptyhost/internal/term/xvtgate"
)

type playOptions struct {
	speed     float64
	idleLimit time.Duration
	screen    bool
	format    formatFlag
	backend   backendFlag
	file      string
}

func parsePlay(args []string) (playOptions, error) {
	o := playOptions{format: formatText, speed: 1}
	fs := newFlagSet("play")
	fs.Var(floatFlag{&o.speed}, "speed", "")
	fs.Var(durationFlag{&o.idleLimit}, "idle-limit", "")
	fs.BoolVar(&o.screen, "screen", false, "")
	fs.Var(&o.format, "format", "")
	fs.Var(&o.backend, "backend", "")
	// Flags may come before or after the file name.
	files, _, err := parseArgs(fs, args, true)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return o, err
	case err != nil:
		return o, &usageError{cmd: "play", err: err}
	case len(files) == 0:
		return o, usagef("play", "missing cast file: ptyhost play [flags] FILE.cast")
	case len(files) > 1:
		return o, usagef("play", "one cast file at a time, got %d", len(files))
	case !(o.speed >= 0.001 && o.speed <= 1000):
		return o, usagef("play", "--speed must be in 0.001..1000")
	case o.idleLimit < 0:
		return o, usagef("play", "--idle-limit must not be negative")
	case o.format != formatText && !o.screen:
		return o, usagef("play", "--format applies to --screen only")
	}
	o.file = files[0]
	return o, nil
}

func playCmd(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	o, err := parsePlay(args)
	if err != nil {
		return err // flag.ErrHelp too: run prints the help
	}
	in := stdin
	if o.file != "-" {
		f, err := os.Open(o.file)
		if err != nil {
			return usagef("play", "cannot read cast: %v", err)
		}
		defer f.Close()
		in = f
	}
	cr, err := cast.NewReader(in)
	if err != nil {
		return castProblem(o.file, err)
	}
	// One rule for replaying and rendering: a cast is played if the host
	// could have recorded it.
	if h := cr.Header(); h.Width > ptyhost.MaxCols || h.Height > ptyhost.MaxRows {
		return castProblem(o.file, fmt.Errorf("its size %dx%d is out of range: want %s", h.Width, h.Height, sizeLimits))
	}
	if o.screen {
		return playScreen(cr, o, stdout)
	}
	return playLive(ctx, cr, o, stdout)
}

// castProblem reports a malformed or unreadable cast as a usage error
// (exit status 2) naming the file: the cast is the user's input.
func castProblem(file string, err error) error {
	return usagef("play", "%s: %v", file, err)
}

// playScreen feeds every output event to a headless terminal of the
// cast's size, applies its resizes, and prints the final screen.
func playScreen(cr *cast.Reader, o playOptions, stdout io.Writer) error {
	h := cr.Header()
	t, err := newTerminal(o.backend.b, term.Options{Cols: h.Width, Rows: h.Height, Scrollback: ptyhost.DefaultScrollback})
	if err != nil {
		return fmt.Errorf("play: %w", err)
	}
	defer t.Close()
	for {
		ev, err := cr.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return castProblem(o.file, err)
		}
		switch ev.Code {
		case "o":
			t.Write([]byte(ev.Data))
		case "r":
			if c, r, err := cast.ParseSize(ev.Data); err == nil {
				// The host never runs a terminal larger than its limits.
				t.Resize(min(c, ptyhost.MaxCols), min(r, ptyhost.MaxRows), 0, 0)
			}
		}
	}
	var scr attachwire.Screen
	t.Screen(&scr)
	scr.Echo = attachwire.EchoUnknown
	return writeScreen(stdout, &scr, o.format)
}

// Pacing of a live replay.
const (
	// playSlack is how early an event may be written: events due within
	// it are written with the ones already due, one write and no sleep,
	// since a sleep that short costs more than it waits.
	playSlack = time.Millisecond
	// playBatch bounds the bytes gathered into one write.
	playBatch = 64 << 10
)

// playLive writes the output events to stdout through a Viewer sanitizer,
// each at its recorded time (divided by --speed, every pause capped by
// the idle limit). Times are kept against one clock started with the
// replay, so the cost of sleeping and writing never adds up: events
// that are already due are gathered into one write. On a terminal, REP
// counts are bounded by its size, read again before each write so that a
// resize during the replay is followed.
func playLive(ctx context.Context, cr *cast.Reader, o playOptions, stdout io.Writer) (err error) {
	h := cr.Header()
	idle := o.idleLimit
	if idle == 0 && h.IdleTimeLimit > 0 && h.IdleTimeLimit < math.MaxInt32 {
		idle = time.Duration(h.IdleTimeLimit * float64(time.Second))
	}
	fd, isFile := fileFd(stdout)
	tty := isFile && isTerminal(fd)
	san := sanitize.New(sanitize.Options{Profile: sanitize.Viewer, Cols: h.Width, Rows: h.Height})
	timer := time.NewTimer(time.Hour)
	timer.Stop()
	defer timer.Stop()
	// Whatever ends the replay (the end, a signal, a bad event, a write
	// error), the terminal gets its restore trailer.
	defer func() {
		if ferr := finishPlay(stdout, tty); err == nil {
			err = ferr
		}
	}()
	var buf []byte
	flush := func() error {
		if len(buf) == 0 {
			return nil
		}
		_, err := stdout.Write(buf)
		buf = buf[:0]
		if err != nil {
			return fmt.Errorf("play: %w", err)
		}
		return nil
	}
	start := time.Now()
	var due time.Duration // when the current event is due, from start
	var last float64      // the recorded time of the previous event
	for {
		if ctx.Err() != nil {
			return interrupted(ctx)
		}
		ev, err := cr.Next()
		if err == io.EOF {
			return flush()
		}
		if err != nil {
			flush()
			return castProblem(o.file, err)
		}
		if ev.Code != "o" {
			continue
		}
		pause := time.Duration(max(ev.Time-last, 0) / o.speed * float64(time.Second))
		last = max(last, ev.Time)
		if idle > 0 {
			pause = min(pause, idle)
		}
		due += pause
		if wait := time.Until(start.Add(due)); wait > playSlack || len(buf) >= playBatch {
			if err := flush(); err != nil {
				return err
			}
			if wait > 0 {
				timer.Reset(wait)
				select {
				case <-timer.C:
				case <-ctx.Done():
					return interrupted(ctx)
				}
			}
		}
		if len(buf) == 0 && tty {
			if c, r, _, _, err := termSize(fd); err == nil && c > 0 && r > 0 {
				san.SetSize(c, r)
			}
		}
		buf = san.Append(buf, []byte(ev.Data))
	}
}

// finishPlay resets a terminal the replay may have changed.
func finishPlay(stdout io.Writer, tty bool) error {
	if !tty {
		return nil
	}
	_, err := io.WriteString(stdout, restoreTrailer)
	return err
}

// newTerminal returns the headless terminal a session with backend b would
// use, for rendering a cast the way the host renders a live program.
func newTerminal(b ptyhost.Backend, opts term.Options) (term.Terminal, error) {
	if b.Resolve() == ptyhost.BackendXVT {
		return xvtgate.New(opts)
	}
	return engine.New(opts), nil
}

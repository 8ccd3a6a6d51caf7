package main

import (
	"context"
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
	o := playOptions{format: formatText}
	fs := newFlagSet("play")
	fs.Float64Var(&o.speed, "speed", 1, "")
	fs.DurationVar(&o.idleLimit, "idle-limit", 0, "")
	fs.BoolVar(&o.screen, "screen", false, "")
	fs.Var(&o.format, "format", "")
	fs.Var(&o.backend, "backend", "")
	// Flags may come before or after the file name.
	var files []string
	for {
		if err := parseFlags("play", fs, args); err != nil {
			return o, err
		}
		args = fs.Args()
		if len(args) == 0 {
			break
		}
		files = append(files, args[0])
		args = args[1:]
	}
	switch {
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
	if h.Width > ptyhost.MaxCols || h.Height > ptyhost.MaxRows {
		return castProblem(o.file, fmt.Errorf("size %dx%d is larger than ptyhost's %dx%d", h.Width, h.Height, ptyhost.MaxCols, ptyhost.MaxRows))
	}
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

// playLive writes the output events to stdout through a Viewer sanitizer,
// sleeping between them as recorded (divided by --speed, each pause capped
// by the idle limit).
func playLive(ctx context.Context, cr *cast.Reader, o playOptions, stdout io.Writer) (err error) {
	idle := o.idleLimit
	if h := cr.Header(); idle == 0 && h.IdleTimeLimit > 0 && h.IdleTimeLimit < math.MaxInt32 {
		idle = time.Duration(h.IdleTimeLimit * float64(time.Second))
	}
	san := sanitize.New(sanitize.Options{Profile: sanitize.Viewer, Cols: cr.Header().Width, Rows: cr.Header().Height})
	fd, isFile := fileFd(stdout)
	tty := isFile && isTerminal(fd)
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
	var last float64
	var buf []byte
	for {
		if ctx.Err() != nil {
			return interrupted(ctx)
		}
		ev, err := cr.Next()
		if err == io.EOF {
			return nil
		}
		if err != nil {
			return castProblem(o.file, err)
		}
		if ev.Code != "o" {
			continue
		}
		delay := time.Duration(max(ev.Time-last, 0) / o.speed * float64(time.Second))
		last = max(last, ev.Time)
		if idle > 0 {
			delay = min(delay, idle)
		}
		if delay > 0 {
			timer.Reset(delay)
			select {
			case <-timer.C:
			case <-ctx.Done():
				return interrupted(ctx)
			}
		}
		buf = san.Append(buf[:0], []byte(ev.Data))
		if _, err := stdout.Write(buf); err != nil {
			return fmt.Errorf("play: %w", err)
		}
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

package termdriver

import (
	"context"
	"errors"
	"fmt"
	"io"
	"regexp"
	"time"

	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/attachwire"
)

// checkDelay batches pattern checks while output flows: the screen is
// matched at most once per checkDelay, and always once output pauses.
const checkDelay = 20 * time.Millisecond

// Reason says which condition ended a Wait.
type Reason string

// The conditions that end a Wait.
const (
	ReasonMatch   Reason = "match"   // the pattern appeared on the screen
	ReasonQuiet   Reason = "quiet"   // no output for WaitOptions.Quiet
	ReasonExit    Reason = "exit"    // the program exited
	ReasonTimeout Reason = "timeout" // WaitOptions.Timeout passed first
)

// WaitOptions says what Wait waits for. The first condition to hold ends
// the wait; the program's exit always does, but a pattern that matches
// the final screen still reports ReasonMatch. With neither Pattern nor
// Quiet, Wait waits for the exit.
type WaitOptions struct {
	// Pattern is matched against the screen's text (Screen.Text: the
	// visible lines joined by newlines, without the cursor mark). Compile
	// it with (?m) for ^ and $ to match at line boundaries.
	Pattern *regexp.Regexp

	// Quiet ends the wait once the program has written nothing for this
	// long (counted from the start of the wait when it writes nothing).
	Quiet time.Duration

	// Timeout ends the wait with ReasonTimeout; 0 means only ctx bounds it.
	Timeout time.Duration

	// Screen selects what the returned screen carries.
	Screen ScreenOptions
}

// WaitResult is how a Wait ended and the screen then.
type WaitResult struct {
	Reason Reason
	// Match is the text the pattern matched on the returned screen, when
	// it does (also after ReasonExit or ReasonQuiet).
	Match  string
	Screen Screen
	// Waited is how long the wait took.
	Waited time.Duration
}

// Wait waits until the pattern appears on the screen, the output has
// been quiet for opts.Quiet, the program exits, or opts.Timeout passes,
// and returns the screen at that moment with the reason. A timeout is a
// result, not an error; ctx ending is an error.
func (s *Session) Wait(ctx context.Context, opts WaitOptions) (WaitResult, error) {
	start := time.Now()
	w := waiter{s: s, opts: opts, start: start}
	reason, err := w.run(ctx)
	if err != nil {
		return WaitResult{}, fmt.Errorf("termdriver: wait on %s: %w", s.id, err)
	}
	scr, err := s.Screen(opts.Screen)
	if err != nil {
		return WaitResult{}, err
	}
	res := WaitResult{Reason: reason, Screen: scr, Waited: time.Since(start)}
	if opts.Pattern != nil {
		if loc := opts.Pattern.FindStringIndex(scr.Text()); loc != nil {
			res.Match = scr.Text()[loc[0]:loc[1]]
			if reason == ReasonTimeout || reason == ReasonExit {
				// The screen returned matches: what the caller waited
				// for is there, even if the program exited or the time
				// ran out just after it appeared (Screen.Exited tells).
				res.Reason = ReasonMatch
			}
		}
	}
	return res, nil
}

// waiter is one Wait's state.
type waiter struct {
	s     *Session
	opts  WaitOptions
	start time.Time
	sub   *ptyhost.Subscription
}

func (w *waiter) run(ctx context.Context) (Reason, error) {
	if w.matches() {
		return ReasonMatch, nil
	}
	if _, exited := w.s.host.Exit(); exited {
		return ReasonExit, nil
	}
	if err := w.subscribe(); err != nil {
		return "", err
	}
	defer func() { w.sub.Close() }()
	var deadline, checkAt time.Time
	if w.opts.Timeout > 0 {
		deadline = w.start.Add(w.opts.Timeout)
	}
	lastOutput := w.start
	quietAt := func() time.Time {
		if w.opts.Quiet > 0 {
			return lastOutput.Add(w.opts.Quiet)
		}
		return time.Time{}
	}
	for {
		f, err := w.next(ctx, earliest(deadline, quietAt(), checkAt))
		switch {
		case err == io.EOF:
			return ReasonExit, nil
		case errors.Is(err, context.DeadlineExceeded) && ctx.Err() == nil:
			// A timer is due: handled below.
		case err != nil:
			return "", err
		case f.Type == attachwire.TypeOutput:
			lastOutput = time.Now()
			if w.opts.Pattern != nil && checkAt.IsZero() {
				checkAt = lastOutput.Add(checkDelay)
			}
		case f.Type == attachwire.TypeResize && w.opts.Pattern != nil && checkAt.IsZero():
			checkAt = time.Now()
		}
		// Timers are checked after every frame too, so that output that
		// never pauses holds off neither the timeout nor the pattern.
		now := time.Now()
		if due(checkAt, now) {
			checkAt = time.Time{}
			if w.matches() {
				return ReasonMatch, nil
			}
		}
		switch {
		case due(quietAt(), now):
			return ReasonQuiet, nil
		case due(deadline, now):
			return ReasonTimeout, nil
		}
	}
}

// subscribe follows the stream from the current screen on.
func (w *waiter) subscribe() error {
	_, at, err := w.s.host.Snapshot()
	if err != nil {
		return err
	}
	sub, err := w.s.host.Subscribe(at)
	if err != nil {
		return err
	}
	w.sub = sub
	return nil
}

// next returns the next frame, waiting at most until deadline (if set). A
// subscription that fell off the ring resumes from the current screen:
// Wait looks at screens, not at every byte.
func (w *waiter) next(ctx context.Context, deadline time.Time) (attachwire.Frame, error) {
	if !deadline.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, deadline)
		defer cancel()
	}
	f, err := w.sub.Next(ctx)
	if errors.Is(err, attachwire.ErrRingMiss) {
		w.sub.Close()
		if err := w.subscribe(); err != nil {
			return f, err
		}
		// What was missed was output.
		return attachwire.Frame{Type: attachwire.TypeOutput}, nil
	}
	return f, err
}

// matches reports whether the pattern is on the screen now.
func (w *waiter) matches() bool {
	if w.opts.Pattern == nil {
		return false
	}
	scr, seq, err := w.s.host.Snapshot()
	if err != nil {
		return false
	}
	text := newScreen(&scr, seq, 0)
	return w.opts.Pattern.MatchString(text.Text())
}

func due(t, now time.Time) bool { return !t.IsZero() && !now.Before(t) }

// earliest returns the earliest non-zero time, or the zero time.
func earliest(ts ...time.Time) time.Time {
	var first time.Time
	for _, t := range ts {
		if !t.IsZero() && (first.IsZero() || t.Before(first)) {
			first = t
		}
	}
	return first
}

package termdriver

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"time"

	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/approval"
	"github.com/ptyhost/ptyhost/attachwire"
)

// historyLen is how many screens a session remembers for ScreenOptions.Since:
// the last few a caller was given, which is what a caller diffs against.
const historyLen = 16

// Session is one program a Driver runs. It is safe for concurrent use;
// input from concurrent Type calls is written whole, one call after the
// other.
type Session struct {
	id      string
	host    *ptyhost.Session
	command []string
	started time.Time

	// log is the session's output log, nil when the Driver keeps none.
	log *outputLog

	// input serializes writers: a token in the channel is the right to
	// write, so that waiting for it honours a context.
	input chan struct{}

	mu      sync.Mutex
	history []Screen       // the last screens handed out, oldest first
	gate    *approval.Gate // nil: input is typed at once
}

func newSession(id string, host *ptyhost.Session, command []string) *Session {
	s := &Session{id: id, host: host, command: slices.Clone(command), started: time.Now(), input: make(chan struct{}, 1)}
	s.input <- struct{}{}
	return s
}

// ID returns the session's ID, unique within its Driver.
func (s *Session) ID() string { return s.id }

// Host returns the ptyhost session underneath, for what this package does
// not cover (subscribing to frames, attaching a viewer, sharing).
func (s *Session) Host() *ptyhost.Session { return s.host }

// Info describes a session for a listing.
type Info struct {
	ID         string
	Command    []string
	PID        int
	Cols, Rows int
	Started    time.Time
	Exited     bool
	Exit       attachwire.Exit
}

// Info returns the session's description.
func (s *Session) Info() Info {
	cols, rows := s.host.Size()
	ex, exited := s.host.Exit()
	return Info{
		ID: s.id, Command: slices.Clone(s.command), PID: s.host.PID(),
		Cols: cols, Rows: rows, Started: s.started, Exited: exited, Exit: ex,
	}
}

// ScreenOptions selects what Screen returns beside the visible lines.
type ScreenOptions struct {
	// Since is the Seq of a screen this session returned earlier: the
	// result's Changed lists the rows that differ from it. When that
	// screen is no longer remembered (a session keeps its last 16) or the
	// size changed, Base is 0 and the caller should use the whole screen.
	// 0 compares with nothing.
	Since uint64

	// Scrollback is how many lines of history above the screen to add;
	// -1 for all the host keeps, 0 for none.
	Scrollback int
}

// Screen returns the session's screen now, from the host's terminal
// emulator: the same screen a viewer attaching at that seq would see.
func (s *Session) Screen(opts ScreenOptions) (Screen, error) {
	scr, seq, err := s.host.Snapshot()
	if err != nil {
		return Screen{}, fmt.Errorf("termdriver: screen of %s: %w", s.id, err)
	}
	out := newScreen(&scr, seq, opts.Scrollback)
	out.Exit, out.Exited = s.host.Exit()
	s.remember(&out, opts.Since)
	return out, nil
}

// remember diffs scr against the screen at since, if remembered, and
// keeps scr for later diffs.
func (s *Session) remember(scr *Screen, since uint64) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if since != 0 && since == scr.Seq {
		// The same seq is the same screen, whether or not it was returned.
		scr.Base, scr.Changed = since, []int{}
	} else if since != 0 {
		for i := range s.history {
			if s.history[i].Seq != since {
				continue
			}
			if changed, ok := diffRows(&s.history[i], scr); ok {
				scr.Base, scr.Changed = since, changed
			}
			break
		}
	}
	kept := *scr
	// The caller owns what it was given: the history keeps its own lines.
	kept.Lines, kept.Scrollback, kept.Changed = slices.Clone(scr.Lines), nil, nil
	if n := len(s.history); n > 0 && s.history[n-1].Seq == kept.Seq {
		return
	}
	if len(s.history) == historyLen {
		s.history = append(s.history[:0], s.history[1:]...)
	}
	s.history = append(s.history, kept)
}

// Type writes text and then the keys to the program, as a terminal would
// send them: the keys are encoded for the program's current cursor-key
// mode. Text is sent verbatim (a "\n" is a line feed, not the Enter key,
// which sends "\r"). It returns the number of bytes sent once the
// program's terminal has taken all of them; when ctx ends first it
// returns an error matching ErrInputPending and the rest is still written
// in order. After exit it returns ptyhost.ErrExited.
func (s *Session) Type(ctx context.Context, text string, keys ...Key) (int, error) {
	if s.Gate() != nil {
		return 0, ErrNeedsApproval
	}
	p := s.encode(text, keys)
	return len(p), s.write(ctx, p)
}

// encode is text then keys, for the program's current cursor-key mode.
func (s *Session) encode(text string, keys []Key) []byte {
	p := []byte(text)
	if len(keys) > 0 {
		appCursor := false
		if scr, _, err := s.host.Snapshot(); err == nil {
			appCursor = scr.Modes&attachwire.ModeAppCursorKeys != 0
		}
		for _, k := range keys {
			p = k.Append(p, appCursor)
		}
	}
	return p
}

// TypeKeys is Type with the keys given by name (see ParseKey) and no text.
func (s *Session) TypeKeys(ctx context.Context, names ...string) (int, error) {
	keys := make([]Key, len(names))
	for i, n := range names {
		k, err := ParseKey(n)
		if err != nil {
			return 0, err
		}
		keys[i] = k
	}
	return s.Type(ctx, "", keys...)
}

// write hands p to the program's terminal input, one writer at a time.
func (s *Session) write(ctx context.Context, p []byte) error {
	if len(p) == 0 {
		return nil
	}
	if _, exited := s.host.Exit(); exited {
		return fmt.Errorf("termdriver: type into %s: %w", s.id, ptyhost.ErrExited)
	}
	select {
	case <-s.input:
	case <-ctx.Done():
		return fmt.Errorf("termdriver: type into %s: earlier input still pending: %w", s.id, ErrInputPending)
	}
	done := make(chan error, 1)
	go func() {
		// WriteInput returns once the program reads or the session ends
		// (Stop closes the master), so this goroutine always returns.
		_, err := s.host.WriteInput(p)
		s.input <- struct{}{}
		done <- err
	}()
	select {
	case err := <-done:
		if err != nil {
			return fmt.Errorf("termdriver: type into %s: %w", s.id, err)
		}
		return nil
	case <-ctx.Done():
		return fmt.Errorf("termdriver: type into %s: %w", s.id, ErrInputPending)
	}
}

// Resize sets the terminal size; the program gets SIGWINCH.
func (s *Session) Resize(cols, rows int) error {
	if _, err := s.host.Resize(cols, rows, 0, 0); err != nil {
		return fmt.Errorf("termdriver: resize %s: %w", s.id, err)
	}
	return nil
}

// Output returns up to max bytes of the session's output log from byte
// offset from on (see Output). Without a log (Options.LogBytes < 0) it
// returns an empty Output with Done set.
func (s *Session) Output(from int64, max int) Output {
	if s.log == nil {
		return Output{Done: true}
	}
	return s.log.read(from, max)
}

// Stop ends the program (see ptyhost.Session.Stop) and returns how it
// exited. The session stays in its Driver until Driver.Stop removes it.
func (s *Session) Stop(ctx context.Context) (attachwire.Exit, error) {
	err := s.host.Stop(ctx)
	if s.log != nil {
		s.log.stop()
	}
	if err != nil {
		return attachwire.Exit{}, fmt.Errorf("termdriver: stop %s: %w", s.id, err)
	}
	ex, _ := s.host.Exit()
	return ex, nil
}

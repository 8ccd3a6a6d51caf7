package termdriver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os"
	"slices"
	"strconv"
	"strings"
	"sync"

	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/approval"
)

// DefaultMaxSessions is how many sessions a Driver holds at once when
// Options.MaxSessions is 0.
const DefaultMaxSessions = 64

// Options configures a Driver. The zero value is ready to use.
type Options struct {
	// MaxSessions bounds the sessions held at once, running or exited
	// and not yet stopped; 0 means DefaultMaxSessions.
	MaxSessions int

	// LogBytes is how much output text each session's log keeps (see
	// Session.Output); 0 means DefaultLogBytes, negative keeps no log.
	// The log reads every byte the program writes: while it lags, the
	// program waits (ptyhost.Session.SubscribeHeld), at most
	// LogHoldTimeout in one stall.
	LogBytes int

	// Spec is the template every session starts from: Start fills in
	// the command, directory, environment and size of each. Its zero
	// value means ptyhost's defaults.
	Spec ptyhost.Spec
}

// Driver runs any number of programs under PTYs, each a Session named by
// a short ID ("s1", "s2", …, never reused). A Driver is safe for
// concurrent use.
type Driver struct {
	opts Options

	mu       sync.Mutex
	sessions map[string]*Session
	next     int
	closed   bool
}

// New returns a Driver with no sessions.
func New(opts Options) *Driver {
	if opts.MaxSessions <= 0 {
		opts.MaxSessions = DefaultMaxSessions
	}
	if opts.LogBytes == 0 {
		opts.LogBytes = DefaultLogBytes
	}
	return &Driver{opts: opts, sessions: make(map[string]*Session)}
}

// StartSpec is what Start runs.
type StartSpec struct {
	// Command is the program and its arguments; required. A name without
	// a slash is looked up in PATH.
	Command []string
	// Dir is the working directory; empty means the Driver's process's.
	Dir string
	// Env holds KEY=VALUE entries applied on top of the Driver process's
	// environment.
	Env []string
	// Cols and Rows are the terminal size; 0 means 80x24.
	Cols, Rows int
	// Approval, when not nil, puts the session in approval mode from its
	// start (Session.RequireApproval): it is never visible without its
	// gate, so no Type can slip in before it.
	Approval *approval.Config
}

// Start runs a program and returns its session. It fails with
// ErrTooManySessions when the Driver is full, ErrClosed after Close, and
// with ptyhost.Spawn's errors (ptyhost.ErrInvalidSpec, exec.ErrNotFound,
// fs.ErrPermission, …) when the program cannot be started.
func (d *Driver) Start(spec StartSpec) (*Session, error) {
	if spec.Dir != "" {
		// Checked here: a missing directory fails the child's start with
		// a message naming the program, not the directory.
		if fi, err := os.Stat(spec.Dir); err != nil {
			return nil, fmt.Errorf("termdriver: start: working directory: %w", err)
		} else if !fi.IsDir() {
			return nil, fmt.Errorf("termdriver: start: working directory %s is not a directory: %w", spec.Dir, fs.ErrInvalid)
		}
	}
	d.mu.Lock()
	switch {
	case d.closed:
		d.mu.Unlock()
		return nil, ErrClosed
	case len(d.sessions) >= d.opts.MaxSessions:
		n := len(d.sessions)
		exited := d.exitedLocked()
		d.mu.Unlock()
		msg := fmt.Sprintf("%d sessions held (the limit); stop one first", n)
		if len(exited) > 0 {
			msg += "; these have exited: " + strings.Join(exited, ", ")
		}
		return nil, fmt.Errorf("%w: %s", ErrTooManySessions, msg)
	}
	d.next++
	id := "s" + strconv.Itoa(d.next)
	d.sessions[id] = nil // reserves the slot while the program starts
	d.mu.Unlock()

	ps := d.opts.Spec
	ps.Command, ps.Dir, ps.Env = spec.Command, spec.Dir, append(slices.Clone(ps.Env), spec.Env...)
	ps.Cols, ps.Rows = spec.Cols, spec.Rows
	host, err := ptyhost.Spawn(ps)

	d.mu.Lock()
	defer d.mu.Unlock()
	if err != nil || d.closed {
		delete(d.sessions, id)
		if err == nil {
			// Close ran while the program started: it is not ours to keep.
			host.Stop(context.Background())
			return nil, ErrClosed
		}
		return nil, fmt.Errorf("termdriver: start: %w", err)
	}
	s := newSession(id, host, spec.Command)
	if spec.Approval != nil {
		s.RequireApproval(*spec.Approval)
	}
	if d.opts.LogBytes > 0 {
		if s.log, err = startLog(host, d.opts.LogBytes); err != nil {
			delete(d.sessions, id)
			host.Stop(context.Background())
			return nil, fmt.Errorf("termdriver: start: output log: %w", err)
		}
	}
	d.sessions[id] = s
	return s, nil
}

// exitedLocked returns the IDs of the sessions whose program has exited.
func (d *Driver) exitedLocked() []string {
	var ids []string
	for id, s := range d.sessions {
		if s != nil {
			if _, ok := s.host.Exit(); ok {
				ids = append(ids, id)
			}
		}
	}
	slices.SortFunc(ids, compareIDs)
	return ids
}

// Session returns the session with the given ID, or an error matching
// ErrUnknownSession that lists the IDs held.
func (d *Driver) Session(id string) (*Session, error) {
	d.mu.Lock()
	defer d.mu.Unlock()
	if s := d.sessions[id]; s != nil {
		return s, nil
	}
	ids := d.idsLocked()
	if len(ids) == 0 {
		return nil, fmt.Errorf("%w; no session is open (start one)", unknownSession(id))
	}
	return nil, fmt.Errorf("%w; open sessions: %s", unknownSession(id), strings.Join(ids, ", "))
}

// idsLocked returns the IDs of the started sessions in start order.
func (d *Driver) idsLocked() []string {
	ids := slices.Collect(maps.Keys(d.sessions))
	ids = slices.DeleteFunc(ids, func(id string) bool { return d.sessions[id] == nil })
	slices.SortFunc(ids, compareIDs)
	return ids
}

// compareIDs orders "s2" before "s10".
func compareIDs(a, b string) int {
	na, _ := strconv.Atoi(strings.TrimPrefix(a, "s"))
	nb, _ := strconv.Atoi(strings.TrimPrefix(b, "s"))
	return na - nb
}

// List returns every session held, in start order.
func (d *Driver) List() []Info {
	d.mu.Lock()
	ids := d.idsLocked()
	ss := make([]*Session, len(ids))
	for i, id := range ids {
		ss[i] = d.sessions[id]
	}
	d.mu.Unlock()
	infos := make([]Info, len(ss))
	for i, s := range ss {
		infos[i] = s.Info()
	}
	return infos
}

// Stop stops the session's program and removes the session from the
// Driver, returning how the program exited.
func (d *Driver) Stop(ctx context.Context, id string) (Info, error) {
	s, err := d.Session(id)
	if err != nil {
		return Info{}, err
	}
	_, err = s.Stop(ctx)
	d.mu.Lock()
	if d.sessions[id] == s {
		delete(d.sessions, id)
	}
	d.mu.Unlock()
	return s.Info(), err
}

// Close stops every session, concurrently, and makes Start fail from then
// on. It returns once every program has ended (or Stop gave up on one,
// whose error it returns).
func (d *Driver) Close(ctx context.Context) error {
	d.mu.Lock()
	d.closed = true
	ss := slices.Collect(maps.Values(d.sessions))
	clear(d.sessions)
	d.mu.Unlock()
	var wg sync.WaitGroup
	errs := make([]error, len(ss))
	for i, s := range ss {
		if s == nil {
			continue
		}
		wg.Go(func() { _, errs[i] = s.Stop(ctx) })
	}
	wg.Wait()
	return errors.Join(errs...)
}

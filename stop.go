package ptyhost

import (
	"context"
	"fmt"
	"syscall"
	"time"
)

// StopGrace is how long Stop waits after SIGHUP and SIGTERM before it
// sends SIGKILL, unless its context ends first.
const StopGrace = 2 * time.Second

// killWait bounds how long Stop waits for the session to end after SIGKILL
// before it gives up on the child and closes the master itself.
const killWait = 5 * time.Second

// Stop ends the session: SIGHUP (what a closed terminal sends, and what
// makes interactive shells exit, which ignore SIGTERM) and SIGTERM to the
// child's process group, SIGKILL when StopGrace or ctx runs out, then it
// waits for the Exit frame and for the session's goroutines (the master is
// closed by then). Stop is idempotent and safe to call concurrently; it
// returns nil once the session is over. Held subscriptions stop holding
// the session first (SubscribeHeld). It is bounded: StopGrace (or ctx),
// then at most a few seconds after SIGKILL, after which it closes the
// master and returns an error (a child stuck in the kernel).
//
// Processes of the group that outlived the child (a background job
// ignoring SIGHUP, which a session leaves running at exit as a closed
// terminal would) get SIGKILL too. On Linux the child is then left
// unreaped until Stop, a zombie whose pid keeps the group's ID from being
// reused, so that Stop can never signal an unrelated process group that
// got the same number; a session whose child leaves no such processes is
// reaped at exit. Elsewhere the child is reaped at exit and Stop leaves
// the leftovers alone.
func (s *Session) Stop(ctx context.Context) error {
	s.releaseHolds()
	if !s.ended() {
		s.signal(syscall.SIGHUP)
		s.signal(syscall.SIGTERM)
		t := time.NewTimer(StopGrace)
		select {
		case <-s.done:
		case <-t.C:
		case <-ctx.Done():
		}
		t.Stop()
	}
	if !s.ended() {
		s.signal(syscall.SIGKILL)
		t := time.NewTimer(killWait)
		defer t.Stop()
		select {
		case <-s.done:
		case <-t.C:
			s.closeMaster()
			return fmt.Errorf("ptyhost: stop: child %d survived SIGKILL", s.pid)
		}
	}
	s.reapGroup(true)
	s.wg.Wait()
	return nil
}

func (s *Session) ended() bool {
	select {
	case <-s.done:
		return true
	default:
		return false
	}
}

// signal sends sig to the child's process group if the child is not yet
// reaped (see Session.group).
func (s *Session) signal(sig syscall.Signal) {
	s.group.Lock()
	defer s.group.Unlock()
	if !s.reaped {
		s.signalLocked(sig)
	}
}

// signalLocked sends sig to the group, ignoring one that no longer has
// members. s.group must be held and the child unreaped.
func (s *Session) signalLocked(sig syscall.Signal) {
	if err := s.kill(s.pid, sig); err != nil && err != syscall.ESRCH {
		s.log.Warn("ptyhost: signal process group", "signal", sig, "err", err)
	}
}

package ptyhost

import (
	"os"
	"syscall"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
)

// DrainGrace and DrainLimit bound how long the host keeps reading the
// master after the child has exited. The drain normally ends at end of
// file, when the last fd of the PTY's slave side closes. A background
// process that inherited the slave (`sleep 60 &`) keeps it open, so the
// host also stops once the master has been quiet for DrainGrace, or, for a
// background process that keeps writing, DrainLimit after the child
// exited. It then publishes what it has read and the Exit frame; whatever
// such a process writes later is lost. The grace counts from the last
// read, not from the exit: a read loop held up by a slow terminal feed or
// a busy session lock loses nothing the child wrote before it exited.
const (
	DrainGrace = 500 * time.Millisecond
	DrainLimit = 3 * time.Second
)

// exitPayload maps the child's wait status to the Exit payload: a normal
// exit carries the code and no signal; a death by signal carries 128 +
// signum and the signal's name (SignalName names every signal, real-time
// ones included).
func exitPayload(ps *os.ProcessState) attachwire.Exit {
	if ex, ok := exitFromProcessState(ps); ok {
		return ex
	}
	// Wait failed without a termination status (it cannot for a child we
	// started and reap ourselves): the conventional "unknown failure".
	return attachwire.Exit{Code: 255}
}

// exitForSignal is the Exit payload of a process killed by sig: code
// 128 + signum, as shells report it (SIGKILL gives 137), and its name. It
// is the one place a signal death becomes a payload, whether the status
// came from a ProcessState or from waitid (awaitExit).
func exitForSignal(sig syscall.Signal) attachwire.Exit {
	return attachwire.Exit{Code: 128 + uint32(sig), Signal: SignalName(sig)}
}

// exitFromProcessState returns the Exit payload of a finished process; ok
// is false when ps is nil or does not describe a termination.
func exitFromProcessState(ps *os.ProcessState) (ex attachwire.Exit, ok bool) {
	if ps == nil {
		return attachwire.Exit{}, false
	}
	type signaled interface {
		Signaled() bool
		Signal() syscall.Signal
	}
	if ws, isWS := ps.Sys().(signaled); isWS && ws.Signaled() {
		return exitForSignal(ws.Signal()), true
	}
	if ps.Exited() {
		return attachwire.Exit{Code: uint32(ps.ExitCode())}, true
	}
	return attachwire.Exit{}, false
}

// lifecycle owns the end of a session: it waits for the child, lets the
// read loop drain the master (bounded by DrainGrace), publishes the Exit
// frame as the last frame, then releases the master, the terminal and the
// answer writer, and closes done: by then the read loop and the writer have
// returned.
func (s *Session) lifecycle() {
	defer s.wg.Done()
	ex, pinned := awaitExit(s.pid)
	if !pinned {
		// Reaped at once, outside s.group so that Stop's signals are not
		// held up; a group signal racing with this reap is the one window
		// left where the platform cannot pin the group.
		if err := s.cmd.Wait(); s.cmd.ProcessState == nil {
			s.log.Error("ptyhost: wait for child", "err", err)
		}
		s.group.Lock()
		s.reaped = true
		s.group.Unlock()
		ex = exitPayload(s.cmd.ProcessState)
	}
	s.drain()
	if pinned && !groupHasOthers(s.pid) {
		s.reapGroup(false) // nothing left for Stop to kill
	}
	s.publishExit(ex)
	if s.rec != nil {
		s.rec.wait() // the cast is complete (or has failed) when Done closes
	}

	// Closing the master releases an answer write blocked on a child that
	// does not read; the terminal is closed before the answerer so that no
	// answer is pushed after it stops.
	s.closeMaster()
	s.term.Close()
	s.answers.close()
	s.log.Debug("ptyhost: session exited", "code", ex.Code, "signal", ex.Signal)
	close(s.done)
}

// reapGroup reaps the child, first sending SIGKILL to its process group
// when kill is set: the leftovers of a session, background jobs that
// outlived the child. Before it the child is running or a zombie (see
// awaitExit) and its pid, the group's ID, cannot name anyone else's group;
// after it no signal is sent to the group again (see signal).
func (s *Session) reapGroup(kill bool) {
	s.group.Lock()
	defer s.group.Unlock()
	if s.reaped {
		return
	}
	if kill {
		s.signalLocked(syscall.SIGKILL)
	}
	if err := s.cmd.Wait(); s.cmd.ProcessState == nil {
		s.log.Error("ptyhost: wait for child", "err", err)
	}
	s.reaped = true
}

// drain lets the read loop run to end of file, bounded by DrainGrace of
// quiet and by DrainLimit in all (see DrainGrace); the read loop extends
// the deadline after every chunk it publishes.
func (s *Session) drain() {
	now := time.Now()
	limit := now.Add(DrainLimit)
	s.drainBy.Store(limit.UnixNano())
	if err := s.reader.setDeadline(now.Add(DrainGrace)); err != nil {
		s.closeMaster()
	}
	<-s.readDone
}

// extendDrain moves the read deadline DrainGrace past now (capped at
// DrainLimit after the exit) once the child has exited; before that there
// is no deadline.
func (s *Session) extendDrain() {
	by := s.drainBy.Load()
	if by == 0 {
		return
	}
	deadline := time.Now().Add(DrainGrace)
	if limit := time.Unix(0, by); limit.Before(deadline) {
		deadline = limit
	}
	if err := s.reader.setDeadline(deadline); err != nil {
		s.closeMaster()
	}
}

// publishExit captures the final screen and publishes the Exit frame; after
// it the terminal is not touched again.
func (s *Session) publishExit(ex attachwire.Exit) {
	payload := exitFramePayload(ex)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.keepFinalScreenLocked()
	s.exit = ex
	s.exited.Store(true) // before the frame is visible to subscribers
	s.exitSeq = s.publishLocked(attachwire.TypeExit, payload).Seq
	if s.rec != nil {
		s.rec.finish(s.relTime)
	}
}

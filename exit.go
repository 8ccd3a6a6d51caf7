package ptyhost

import (
	"os"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
)

// DrainGrace bounds how long the host keeps reading the master after the
// child has exited. The drain normally ends at once, at end of file, when
// the last fd of the PTY's slave side closes; a background process that
// inherited the slave (`sleep 60 &`) would keep it open, so after
// DrainGrace the host stops reading, publishes what it has read and then
// the Exit frame. Whatever such a process writes later is lost.
const DrainGrace = 500 * time.Millisecond

// exitPayload maps the child's wait status to the Exit payload, the one
// place ptyhost does so: a normal exit carries the code and no signal; a
// death by signal carries 128 + signum and the signal's name (attachwire
// names every signal, real-time ones included).
func exitPayload(ps *os.ProcessState) attachwire.Exit {
	if ex, ok := attachwire.ExitFromProcessState(ps); ok {
		return ex
	}
	// Wait failed without a termination status (it cannot for a child we
	// started and reap ourselves): the conventional "unknown failure".
	return attachwire.Exit{Code: 255}
}

// lifecycle owns the end of a session: it waits for the child, lets the
// read loop drain the master (bounded by DrainGrace), publishes the Exit
// frame as the last frame, then releases the master, the terminal and the
// answer writer, and closes done: by then the read loop and the writer have
// returned.
func (s *Session) lifecycle() {
	defer s.wg.Done()
	err := s.cmd.Wait()
	ex := exitPayload(s.cmd.ProcessState)
	if s.cmd.ProcessState == nil {
		s.log.Error("ptyhost: wait for child", "err", err)
	}
	s.drain()
	// While the group has members its ID cannot be reused, so this is the
	// moment to learn whether Stop has leftovers to kill.
	s.leftovers.Store(killGroup(s.pid, 0) == nil)
	s.publishExit(ex)

	// Closing the master releases an answer write blocked on a child that
	// does not read; the terminal is closed before the answerer so that no
	// answer is pushed after it stops.
	s.master.Close()
	s.term.Close()
	s.answers.close()
	s.log.Debug("ptyhost: session exited", "code", ex.Code, "signal", ex.Signal)
	close(s.done)
}

// drain waits for the read loop to reach end of file, cutting it short
// after DrainGrace.
func (s *Session) drain() {
	t := time.NewTimer(DrainGrace)
	defer t.Stop()
	select {
	case <-s.readDone:
		return
	case <-t.C:
	}
	s.log.Info("ptyhost: pty still open after the child exited; ending the drain")
	if err := s.master.SetReadDeadline(time.Now()); err != nil {
		s.master.Close()
	}
	<-s.readDone
}

// publishExit captures the final screen and publishes the Exit frame; after
// it the terminal is not touched again.
func (s *Session) publishExit(ex attachwire.Exit) {
	payload := exitFramePayload(ex)
	s.mu.Lock()
	defer s.mu.Unlock()
	s.screenLocked(&s.final)
	s.exit = ex
	s.exited.Store(true) // before the frame is visible to subscribers
	s.exitSeq = s.publishLocked(attachwire.TypeExit, payload).Seq
	if s.rec != nil {
		s.rec.finish(s.relTime)
	}
}

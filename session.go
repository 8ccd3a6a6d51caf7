package ptyhost

import (
	"bytes"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term"
)

// MaxMarkerLabel is the longest Marker label EmitMarker accepts, in bytes.
const MaxMarkerLabel = 4096

// Session is a command running under a PTY, its headless terminal and the
// frames it has published. Create one with Spawn. A Session is safe for
// concurrent use by multiple goroutines.
//
// Goroutines: a Session runs three (the read loop, which also feeds the
// terminal, the answer writer, and the lifecycle goroutine that waits for
// the child), four with a cast recording (its writer, joined by the
// lifecycle); all have exited once Done is closed, and Stop joins them.
// On Linux the lifecycle's wait for the child holds an OS thread for the
// session's life, and while output flows the read loop's wait for it
// holds another (readchunk_linux.go; it gives it back after a second of
// quiet).
type Session struct {
	spec   Spec
	log    *slog.Logger
	cmd    *exec.Cmd
	pid    int
	master *os.File
	reader *chunkReader // the read loop's; close the master with closeMaster
	anchor time.Time    // rel_time 0: the moment the child was started

	answers *answerer
	ring    *ring
	roles   attachRoles  // which LocalAttach drives
	rec     *recorder    // nil unless Spec.RecordPath; fed under mu
	exited  atomic.Bool  // set under mu together with the Exit frame
	drainBy atomic.Int64 // unix nanos: 0 while the child runs, then the drain's hard limit

	// group orders signals to the child's process group with reaping the
	// child: a signal is sent only while the child is unreaped (running,
	// or a zombie kept by awaitExit), so the group ID is still ours.
	group  sync.Mutex
	reaped bool                                    // under group
	kill   func(pid int, sig syscall.Signal) error // killGroup; tests observe it

	// mu is the session lock (docs/invariants.md, invariant 1): the terminal feed, seq
	// allocation, ring appends and subscription wake-ups happen under it.
	mu         sync.Mutex
	term       term.Terminal
	seq        uint64 // last HostSeq allocated
	relTime    uint64 // rel_time of the last frame
	cols, rows int
	pxW, pxH   int
	exit       attachwire.Exit
	exitSeq    uint64
	// finalSnap is the screen at Exit as a Snapshot payload labelled with
	// the Exit frame's seq (a tenth of the Screen's size), or nil when it
	// did not encode and final holds it; term is closed after it.
	finalSnap []byte
	final     attachwire.Screen
	snapBuf   []byte        // scratch where snapshots the ring keeps are encoded
	marks     *commandMarks // nil when Spec.NoCommandMarks

	unhold     chan struct{} // closed by Stop: held subscriptions no longer hold
	unholdOnce sync.Once

	readDone chan struct{} // closed when the read loop has returned
	done     chan struct{} // closed after Exit is published and goroutines are ending
	wg       sync.WaitGroup
}

func newSession(spec Spec) *Session {
	return &Session{
		spec:     spec,
		log:      spec.Logger,
		cols:     spec.Cols,
		rows:     spec.Rows,
		ring:     newRing(spec.RingBytes),
		marks:    newCommandMarks(spec.NoCommandMarks),
		unhold:   make(chan struct{}),
		readDone: make(chan struct{}),
		done:     make(chan struct{}),
		kill:     killGroup,
	}
}

// PID returns the process ID of the child, which is also its process group
// and session ID.
func (s *Session) PID() int { return s.pid }

// Done returns a channel closed once the Exit frame is published and the
// session has released the PTY and its terminal; by then Exit reports true
// and only the goroutine closing Done is left, returning.
func (s *Session) Done() <-chan struct{} { return s.done }

// Exit returns the child's exit payload and true once the Exit frame has
// been published, else a zero value and false.
func (s *Session) Exit() (attachwire.Exit, bool) {
	if !s.exited.Load() {
		return attachwire.Exit{}, false
	}
	return s.exit, true // written before exited was set
}

// DroppedAnswers returns how many terminal answers were dropped because the
// child was not reading its input fast enough.
func (s *Session) DroppedAnswers() uint64 { return s.answers.dropped.Load() }

// Size returns the current terminal size in cells.
func (s *Session) Size() (cols, rows int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.cols, s.rows
}

// WriteInput writes p to the child's terminal input, verbatim. It blocks
// while the PTY's input buffer is full (the child is not reading) and
// returns ErrExited once the session has exited or is being stopped.
// Input is never taken under the session lock, so a blocked WriteInput
// delays nothing else.
func (s *Session) WriteInput(p []byte) (int, error) {
	if s.exited.Load() {
		return 0, ErrExited
	}
	n, err := s.master.Write(p)
	if n > 0 && s.rec != nil && s.spec.RecordInput {
		s.recordInput(p[:n])
	}
	if err != nil {
		if errors.Is(err, os.ErrClosed) || s.exited.Load() {
			return n, ErrExited
		}
		return n, fmt.Errorf("ptyhost: write input: %w", err)
	}
	return n, nil
}

// recordInput queues written input for the cast, timed as a frame
// published now would be. The lock is taken only after the write, which
// may have blocked, so recording input still delays nothing else.
func (s *Session) recordInput(p []byte) {
	s.mu.Lock()
	defer s.mu.Unlock()
	t := s.relTime
	if rt := uint64(time.Since(s.anchor).Microseconds()); rt > t {
		t = rt
	}
	s.rec.record(attachwire.Frame{Type: attachwire.TypeInput, RelTime: t, Payload: bytes.Clone(p)})
}

// Resize sets the terminal size: the PTY's window size (the child gets
// SIGWINCH), then the emulator's, then it publishes a Resize frame echoing
// the applied size. Sizes outside 1..MaxCols × 1..MaxRows, or pixel sizes
// outside 0..MaxPixels, return a *GeometryError; after exit Resize returns
// ErrExited. It returns the Resize frame's seq.
func (s *Session) Resize(cols, rows, pxWidth, pxHeight int) (uint64, error) {
	if err := checkGeometry(cols, rows, pxWidth, pxHeight); err != nil {
		return 0, err
	}
	payload, err := resizePayload(cols, rows, pxWidth, pxHeight)
	if err != nil {
		return 0, fmt.Errorf("ptyhost: resize: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exited.Load() {
		return 0, ErrExited
	}
	if err := setWinsize(s.master, cols, rows, pxWidth, pxHeight); err != nil {
		return 0, fmt.Errorf("ptyhost: resize: %w", err)
	}
	s.term.Resize(cols, rows, pxWidth, pxHeight)
	s.cols, s.rows, s.pxW, s.pxH = cols, rows, pxWidth, pxHeight
	return s.publishLocked(attachwire.TypeResize, payload).Seq, nil
}

// EmitMarker publishes a Marker frame with a display-only label (invalid
// UTF-8 is replaced) and returns its seq. After exit it returns ErrExited.
func (s *Session) EmitMarker(label string) (uint64, error) {
	if len(label) > MaxMarkerLabel {
		return 0, fmt.Errorf("ptyhost: marker label is %d bytes, max %d", len(label), MaxMarkerLabel)
	}
	payload := markerPayload(label)
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.exited.Load() {
		return 0, ErrExited
	}
	return s.publishLocked(attachwire.TypeMarker, payload).Seq, nil
}

// publishLocked is the one place a frame enters the stream: it allocates
// the next seq and rel_time, appends the frame to the ring and wakes the
// subscriptions. s.mu must be held. The cast recorder hooks in here.
func (s *Session) publishLocked(typ attachwire.FrameType, payload []byte) attachwire.Frame {
	s.seq++
	if rt := uint64(time.Since(s.anchor).Microseconds()); rt > s.relTime {
		s.relTime = rt
	}
	f := attachwire.Frame{Type: typ, Seq: s.seq, RelTime: s.relTime, Payload: payload}
	s.ring.append(f)
	if s.rec != nil {
		s.rec.record(f)
	}
	return f
}

// closeMaster closes the master, first ending a read loop's wait for
// output, which on Linux does not notice the master's Close by itself.
func (s *Session) closeMaster() {
	if s.reader != nil {
		s.reader.interrupt()
	}
	s.master.Close()
}

package relay

import (
	"bufio"
	"errors"
	"path/filepath"
	"strings"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
)

// A sealed room's recording is its sealed stream, as the relay holds it:
// a frames file (docs/protocol.md, "Frames file") of every frame the host
// sent into the ring, which only a holder of the room key can open. The
// relay cannot write an asciicast of what it cannot read.

// sealedRecordSuffix ends a sealed room's recording's name.
const sealedRecordSuffix = ".sealed.frames"

// recSealed is a queued sealed frame's wire bytes (recEvent.data).
const recSealed = recEnd + 1

// startSealedRecordingLocked starts recording a sealed room's stream.
func (rm *room) startSealedRecordingLocked(rs *recorders) {
	now := time.Now()
	name := strings.TrimSuffix(recordFileName(rm.key, rm.epoch, now), recordSuffix) + sealedRecordSuffix
	path := filepath.Join(rs.cfg.Dir, name)
	if !rs.begin(path) {
		return
	}
	r := &roomRecording{rs: rs, key: rm.key, epoch: rm.epoch, path: path, start: now,
		queue: newRecQueue(), done: make(chan struct{})}
	rm.rec = r
	go r.runSealed()
}

// recordSealedLocked queues a sealed room's frame, as taken into the
// ring; the Exit frame ends the recording.
func (rm *room) recordSealedLocked(typ attachwire.FrameType, wire []byte) {
	r := rm.rec
	if r == nil {
		return
	}
	r.pushLocked(rm, recEvent{kind: recSealed, at: time.Now(), data: wire})
	if typ == attachwire.TypeExit {
		r.finishLocked()
	}
}

// runSealed is a sealed room's recording's writer goroutine: the frames
// file's records, flushed after each batch. A failed write stops the
// recording; the room goes on.
func (r *roomRecording) runSealed() {
	defer r.rs.wg.Done()
	defer close(r.done)
	failed := false
	fail := func(err error) {
		if failed {
			return
		}
		failed = true
		if !r.overflow.Load() {
			r.rs.failed.Inc()
		}
		r.rs.rl.log.Error("relay: recording failed; the room goes on", "room", r.key.session, "path", r.path, "err", err)
	}
	var bw *bufio.Writer
	var fw *attachwire.FileWriter
	f, err := r.rs.open(r.path)
	if err != nil {
		fail(err)
	} else {
		r.mu.Lock()
		r.file = f
		r.mu.Unlock()
		bw = bufio.NewWriter(f)
		fw = attachwire.NewFileWriter(bw)
	}
	var batch []recEvent
	for {
		var closed bool
		batch, closed = r.queue.take(batch)
		for _, ev := range batch {
			if failed || ev.kind != recSealed {
				continue
			}
			fr, err := attachwire.DecodeFrame(ev.data)
			if err == nil {
				err = fw.WriteFrame(fr)
			}
			if err != nil {
				fail(err)
			}
		}
		if len(batch) > 0 && !failed {
			if err := bw.Flush(); err != nil {
				fail(err)
			}
		}
		clear(batch)
		if closed {
			break
		}
		<-r.queue.wake
	}
	r.stopWait.Stop()
	r.mu.Lock()
	if r.file != nil && !r.cut {
		r.file.Close()
	}
	cut := r.cut
	r.mu.Unlock()
	if cut {
		fail(errors.New("not written within the finish wait; the file was closed under the writer"))
	}
	r.rs.end(r.path)
}

package relay

import (
	"bufio"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sort"
	"sync"

	"github.com/ptyhost/ptyhost/attachwire"
)

// history keeps one room generation's whole stream on disk, beyond the
// ring, so that a viewer can rewind it (docs/relay.md, "History and
// rewind"). It holds the frames the ring holds, sanitized and encoded,
// plus key frames: host snapshots, in the stream or asked for beside it,
// from which a screen at any point is rebuilt by applying at most about
// KeyframeBytes of frames.
//
// The room appends under its lock and never waits: records go through a
// bounded queue to one writer goroutine, and a history that falls behind
// stops (rewinding then covers what it wrote). Segments of segmentBytes
// hold the records; past the room's bound the oldest segment is removed.
// Readers (the history endpoints) read the segments' files while the
// writer appends: the index says what is written and flushed.
type history struct {
	dir          string
	maxBytes     int64
	segmentBytes int64
	keyEvery     int64
	log          *slog.Logger

	queue chan histRecord

	// Producer side, under the room's lock.
	sinceKey   int64 // output bytes appended since the last key frame
	keyPending bool  // a key frame was asked for and has not come
	lastRel    uint64
	stopped    bool

	mu      sync.Mutex
	segs    []histSegment // oldest first; the last is being written
	points  []histPoint   // sparse seq index: a frame every indexEvery bytes
	keys    []histPoint   // key frames by atSeq
	marks   []histMark
	size    int64  // bytes written, over every segment ever (offsets are global)
	first   uint64 // the oldest seq still held (0: none)
	head    uint64 // the newest seq written
	failure error  // why the history stopped, once it has
}

// histRecord is one frame for the writer: key is set for a key frame
// (seq's Snapshot, or a seq-0 one at atSeq).
type histRecord struct {
	seq, atSeq, rel uint64
	typ             attachwire.FrameType
	key             bool
	wire            []byte
}

type histSegment struct {
	path string
	base int64 // global offset of its first byte
	size int64
}

// histPoint places a frame: its seq (for a key frame, its atSeq), time and
// global offset.
type histPoint struct {
	Seq uint64 `json:"seq"`
	Rel uint64 `json:"t"` // rel_time, µs
	off int64
}

// histMark is a Marker frame, for the timeline.
type histMark struct {
	Seq   uint64 `json:"seq"`
	Rel   uint64 `json:"t"`
	Label string `json:"label"`
	off   int64
}

// Bounds of a history.
const (
	histQueue      = 4096    // records waiting for the writer
	histIndexEvery = 1 << 16 // bytes between sparse index points
	histMaxSegment = 16 << 20
	histMinSegment = 64 << 10
)

var errHistoryGone = errors.New("relay: that part of the history is gone")

// newHistory starts a history in a new directory under dir; its writer
// is counted in writers until it has removed its files.
func newHistory(dir string, maxBytes, keyEvery int64, log *slog.Logger, writers *sync.WaitGroup) (*history, error) {
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, err
	}
	d, err := os.MkdirTemp(dir, "room-")
	if err != nil {
		return nil, err
	}
	seg := min(histMaxSegment, max(maxBytes/8, histMinSegment))
	h := &history{dir: d, maxBytes: maxBytes, segmentBytes: seg, keyEvery: keyEvery, log: log,
		queue: make(chan histRecord, histQueue)}
	writers.Go(h.run)
	return h, nil
}

// add queues a frame the ring took; under the room's lock. It reports
// whether the room should ask its host for a key frame.
func (h *history) add(seq uint64, typ attachwire.FrameType, atSeq, rel uint64, wire []byte) (askKey bool) {
	if h.stopped {
		return false
	}
	h.lastRel = rel
	key := typ == attachwire.TypeSnapshot
	if key {
		h.sinceKey, h.keyPending = 0, false
	} else {
		h.sinceKey += int64(len(wire))
	}
	h.push(histRecord{seq: seq, atSeq: atSeq, rel: rel, typ: typ, key: key, wire: wire})
	if h.sinceKey >= h.keyEvery && !h.keyPending && !h.stopped {
		h.keyPending = true
		return true
	}
	return false
}

// addKeyframe queues a seq-0 key frame at atSeq; under the room's lock.
func (h *history) addKeyframe(atSeq uint64, wire []byte) {
	if h.stopped {
		return
	}
	h.sinceKey, h.keyPending = 0, false
	h.push(histRecord{atSeq: atSeq, rel: h.lastRel, typ: attachwire.TypeSnapshot, key: true, wire: wire})
}

// keyAnswered says the host answered a key frame request some other way
// (or not at all): a later request may go.
func (h *history) keyAnswered() { h.keyPending = false }

func (h *history) push(r histRecord) {
	select {
	case h.queue <- r:
	default:
		h.stopLocked(errors.New("the disk fell behind the room"))
	}
}

// stop ends the history (the room closes, or its generation ends): the
// writer drains, and the files are removed.
func (h *history) stop() {
	if !h.stopped {
		h.stopped = true
		close(h.queue)
	}
}

// stopLocked stops recording after a failure, keeping what was written.
func (h *history) stopLocked(err error) {
	h.mu.Lock()
	if h.failure == nil {
		h.failure = err
	}
	h.mu.Unlock()
	h.log.Warn("relay: room history stopped", "err", err)
	if !h.stopped {
		h.stopped = true
		close(h.queue)
	}
}

// run is the writer: it appends records to segments, flushing whenever
// the queue is empty, and indexes what it flushed. When the queue closes
// it removes the history's files.
func (h *history) run() {
	defer os.RemoveAll(h.dir)
	var f *os.File
	var bw *bufio.Writer
	var pendingIdx []func() // index updates that wait for the flush
	flush := func() error {
		if bw == nil {
			return nil
		}
		if err := bw.Flush(); err != nil {
			return err
		}
		h.mu.Lock()
		for _, u := range pendingIdx {
			u()
		}
		h.mu.Unlock()
		pendingIdx = pendingIdx[:0]
		return nil
	}
	fail := func(err error) {
		h.mu.Lock()
		if h.failure == nil {
			h.failure = err
		}
		h.mu.Unlock()
		h.log.Warn("relay: room history stopped", "err", err)
	}
	defer func() {
		if f != nil {
			f.Close()
		}
	}()
	var lenBuf [binary.MaxVarintLen64]byte
	var lastPoint int64 = -histIndexEvery
	failed := false
	for r := range h.queue {
		if failed {
			continue
		}
		rec := int64(binary.PutUvarint(lenBuf[:], uint64(len(r.wire))) + len(r.wire))
		h.mu.Lock()
		cur := len(h.segs) - 1
		needNew := cur < 0 || h.segs[cur].size+rec > h.segmentBytes && h.segs[cur].size > 0
		h.mu.Unlock()
		if needNew {
			if err := flush(); err != nil {
				fail(err)
				failed = true
				continue
			}
			if f != nil {
				f.Close()
			}
			var err error
			f, err = os.OpenFile(filepath.Join(h.dir, fmt.Sprintf("%012d.seg", h.written())), os.O_CREATE|os.O_EXCL|os.O_WRONLY, 0o600)
			if err != nil {
				fail(err)
				failed = true
				continue
			}
			bw = bufio.NewWriterSize(f, 64<<10)
			h.mu.Lock()
			h.segs = append(h.segs, histSegment{path: f.Name(), base: h.size})
			h.dropOldLocked(rec)
			h.mu.Unlock()
		}
		off := h.written()
		bw.Write(lenBuf[:binary.PutUvarint(lenBuf[:], uint64(len(r.wire)))])
		bw.Write(r.wire)
		h.mu.Lock()
		h.size += rec
		h.segs[len(h.segs)-1].size += rec
		h.mu.Unlock()
		r := r
		pendingIdx = append(pendingIdx, func() { h.indexLocked(r, off, &lastPoint) })
		if len(h.queue) == 0 {
			if err := flush(); err != nil {
				fail(err)
				failed = true
			}
		}
	}
	if err := flush(); err != nil && !failed {
		fail(err)
	}
}

// written returns the global offset of the next record.
func (h *history) written() int64 {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.size
}

// indexLocked records a flushed record in the index.
func (h *history) indexLocked(r histRecord, off int64, lastPoint *int64) {
	if r.key {
		h.keys = append(h.keys, histPoint{Seq: r.atSeq, Rel: r.rel, off: off})
		sort.SliceStable(h.keys, func(i, j int) bool { return h.keys[i].Seq < h.keys[j].Seq })
		if r.seq == 0 {
			return // beside the stream: no seq of its own
		}
	}
	if r.seq <= h.head && h.head != 0 {
		return
	}
	if h.first == 0 {
		h.first = r.seq
	}
	h.head = r.seq
	if off-*lastPoint >= histIndexEvery {
		h.points = append(h.points, histPoint{Seq: r.seq, Rel: r.rel, off: off})
		*lastPoint = off
	}
	if r.typ == attachwire.TypeMarker {
		if f, err := attachwire.DecodeFrame(r.wire); err == nil {
			if m, err := attachwire.DecodeMarker(f.Payload); err == nil {
				h.marks = append(h.marks, histMark{Seq: r.seq, Rel: r.rel, Label: m.Label, off: off})
			}
		}
	}
}

// dropOldLocked removes the oldest segments while the history, with rec
// more bytes, would pass its bound (never the one being written).
func (h *history) dropOldLocked(rec int64) {
	for len(h.segs) > 1 && h.size-h.segs[0].base+rec > h.maxBytes {
		gone := h.segs[0]
		h.segs = h.segs[1:]
		os.Remove(gone.path)
		cut := h.segs[0].base
		h.points = dropBefore(h.points, cut)
		h.keys = dropBefore(h.keys, cut)
		i := sort.Search(len(h.marks), func(i int) bool { return h.marks[i].off >= cut })
		h.marks = h.marks[i:]
		// The oldest seq held is the first whole frame after the cut: a
		// rewind starts at a key frame, so what counts is the oldest key.
		if len(h.keys) > 0 {
			h.first = h.keys[0].Seq + 1
		}
	}
}

func dropBefore(ps []histPoint, cut int64) []histPoint {
	kept := ps[:0]
	for _, p := range ps {
		if p.off >= cut {
			kept = append(kept, p)
		}
	}
	return kept
}

// historyIndex is what the index endpoint answers: enough for a timeline
// (times of key frames, points and marks) without reading any frame.
type historyIndex struct {
	First     uint64      `json:"first"`
	Head      uint64      `json:"head"`
	Keyframes []histPoint `json:"keyframes"`
	Points    []histPoint `json:"points"`
	Marks     []histMark  `json:"marks"`
	// Epoch is the host's epoch, the one every frame of the history
	// belongs to: a new epoch starts a new history.
	Epoch uint64 `json:"epoch"`
	// Sealed is the key id the history's frames are sealed under, ""
	// in a plain room: a new key starts a new history, so one history
	// is all under one key.
	Sealed string `json:"sealed,omitempty"`
	// Stopped says why the history stopped growing, "" while it grows.
	Stopped string `json:"stopped,omitempty"`
}

func (h *history) index() historyIndex {
	h.mu.Lock()
	defer h.mu.Unlock()
	ix := historyIndex{First: h.first, Head: h.head,
		Keyframes: append([]histPoint{}, h.keys...),
		Points:    append([]histPoint{}, h.points...),
		Marks:     append([]histMark{}, h.marks...)}
	if h.failure != nil {
		ix.Stopped = h.failure.Error()
	}
	return ix
}

// screenAt writes to w the newest key frame at or before seq at, then
// every frame after it up to at: what a viewer applies to show the
// screen at that point. It returns the key frame's atSeq.
func (h *history) screenAt(at uint64, w *attachwire.FileWriter) (uint64, error) {
	h.mu.Lock()
	i := sort.Search(len(h.keys), func(i int) bool { return h.keys[i].Seq > at }) - 1
	if i < 0 || at > h.head {
		h.mu.Unlock()
		return 0, errHistoryGone
	}
	key := h.keys[i]
	h.mu.Unlock()
	from := key.Seq + 1
	if err := h.readRecords(key.off, func(f attachwire.Frame, _ []byte) (bool, error) {
		if f.Seq != 0 {
			from = f.Seq + 1 // an in-stream snapshot: its own seq is applied
		}
		return false, w.WriteFrame(f)
	}); err != nil {
		return 0, err
	}
	_, err := h.frames(from, at, 0, w)
	return key.Seq, err
}

// frames writes the frames from seq from to seq to (inclusive), at most
// maxBytes of them when maxBytes > 0, and returns the seq after the last
// one written.
func (h *history) frames(from, to uint64, maxBytes int64, w *attachwire.FileWriter) (next uint64, err error) {
	if from > to {
		return from, nil
	}
	h.mu.Lock()
	if from < h.first || h.first == 0 {
		h.mu.Unlock()
		return 0, errHistoryGone
	}
	start := int64(-1)
	if len(h.segs) > 0 {
		start = h.segs[0].base
	}
	if i := sort.Search(len(h.points), func(i int) bool { return h.points[i].Seq > from }) - 1; i >= 0 {
		start = h.points[i].off
	}
	h.mu.Unlock()
	if start < 0 {
		return 0, errHistoryGone
	}
	next, sent := from, int64(0)
	err = h.readRecords(start, func(f attachwire.Frame, wire []byte) (bool, error) {
		switch {
		case f.Seq == 0 || f.Seq < next:
			return true, nil // a key frame beside the stream, or before the range
		case f.Seq > next:
			return false, errHistoryGone // a gap: the history cannot serve it
		case f.Seq > to || maxBytes > 0 && sent > 0 && sent+int64(len(wire)) > maxBytes:
			return false, nil
		}
		if err := w.WriteFrame(f); err != nil {
			return false, err
		}
		next++
		sent += int64(len(wire))
		return next <= to, nil
	})
	return next, err
}

// readRecords reads the records from global offset off on, through the
// segments, calling fn with each decoded frame until fn says stop, the
// written end is reached, or an error.
func (h *history) readRecords(off int64, fn func(f attachwire.Frame, wire []byte) (bool, error)) error {
	h.mu.Lock()
	segs := append([]histSegment{}, h.segs...)
	h.mu.Unlock()
	for _, s := range segs {
		if off >= s.base+s.size {
			continue
		}
		if off < s.base {
			return errHistoryGone
		}
		f, err := os.Open(s.path)
		if err != nil {
			return errHistoryGone // removed since the index was read
		}
		more, err := readSegment(f, off-s.base, s.size-(off-s.base), fn)
		f.Close()
		if err != nil || !more {
			return err
		}
		off = s.base + s.size
	}
	return nil
}

// readSegment reads n bytes of records at pos in f.
func readSegment(f *os.File, pos, n int64, fn func(attachwire.Frame, []byte) (bool, error)) (bool, error) {
	br := bufio.NewReaderSize(io.NewSectionReader(f, pos, n), 64<<10)
	for {
		l, err := binary.ReadUvarint(br)
		if err == io.EOF {
			return true, nil
		}
		if err != nil || l > attachwire.MaxRecordLen {
			return false, fmt.Errorf("relay: history record: %v", err)
		}
		wire := make([]byte, l)
		if _, err := io.ReadFull(br, wire); err != nil {
			return false, fmt.Errorf("relay: history record: %w", err)
		}
		fr, err := attachwire.DecodeFrame(wire)
		if err != nil {
			return false, fmt.Errorf("relay: history record: %w", err)
		}
		more, err := fn(fr, wire)
		if err != nil || !more {
			return false, err
		}
	}
}

package relay

import (
	"bytes"
	"errors"
	"net/http"
	"strconv"

	"github.com/ptyhost/ptyhost/attachwire"
)

// HistoryChunkBytes bounds one answer of the history's frame range: a
// viewer reading the whole history (to search it) asks again from where
// an answer stopped.
const HistoryChunkBytes = 4 << 20

// NextSeqHeader names the response header of a frame range that says
// where the next range starts.
const NextSeqHeader = "Ptyhost-Next-Seq"

func (rl *Relay) routeHistory() {
	rl.mux.HandleFunc("GET /v1/rooms/{room}/history", rl.serveHistoryIndex)
	rl.mux.HandleFunc("GET /v1/rooms/{room}/history/frames", rl.serveHistoryFrames)
}

// historyReadsPerDial is how many history requests a client address may
// make for each dial it may make (Config.DialsPerSecond).
const historyReadsPerDial = 10

// historyFor runs a history request's checks, as the degraded lane's
// viewer routes do (draining, a rate, the Origin; a driver or viewer
// token in the Authorization header for this room), and returns the
// room's history with the generation it holds, or answers and returns
// nil. The rate is its own, historyReadsPerDial times the dial rate: a
// timeline being scrubbed or a search reading the whole history asks
// many times a second.
func (rl *Relay) historyFor(w http.ResponseWriter, r *http.Request) (*history, historyGen) {
	if !rl.gate(w, r, rl.reads, "too many history requests") || !rl.originGate(w, r) {
		return nil, historyGen{}
	}
	c, ok := rl.headerClaims(w, r)
	if !ok || !rl.laneRoom(w, r, c, false, "a host token does not read the history") {
		return nil, historyGen{}
	}
	rl.mu.Lock()
	rm := rl.rooms[roomKey{org: c.OrgID, session: c.SessionID}]
	rl.mu.Unlock()
	var h *history
	var gen historyGen
	if rm != nil {
		// A new epoch or a new key starts a new history under the room's
		// lock: read together, the two belong to each other.
		rm.mu.Lock()
		h, gen = rm.hist, historyGen{epoch: rm.epoch, sealed: rm.sealID}
		rm.mu.Unlock()
	}
	if h == nil {
		rl.refuse(w, http.StatusNotFound, "history", "no history of this room here: the relay keeps none, or another node holds its host")
		return nil, historyGen{}
	}
	return h, gen
}

// historyGen is the generation a history holds: the host's epoch, and
// the key id its frames are sealed under ("" in a plain room).
type historyGen struct {
	epoch  uint64
	sealed string
}

// serveHistoryIndex answers GET …/history: the history's extent, key
// frames, sparse points and marks, as JSON (docs/relay.md, "History and
// rewind").
func (rl *Relay) serveHistoryIndex(w http.ResponseWriter, r *http.Request) {
	h, gen := rl.historyFor(w, r)
	if h == nil {
		return
	}
	ix := h.index()
	ix.Epoch, ix.Sealed = gen.epoch, gen.sealed
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, http.StatusOK, ix)
}

// serveHistoryFrames answers GET …/history/frames as a frames file: with
// ?at=N, the newest key frame at or before N and the frames after it up
// to N (the screen at N); with ?from=A&to=B, the frames A through B, at
// most HistoryChunkBytes of them, NextSeqHeader saying where to go on.
func (rl *Relay) serveHistoryFrames(w http.ResponseWriter, r *http.Request) {
	h, _ := rl.historyFor(w, r)
	if h == nil {
		return
	}
	q := r.URL.Query()
	num := func(name string) (uint64, bool) {
		v, err := strconv.ParseUint(q.Get(name), 10, 64)
		return v, err == nil
	}
	at, hasAt := num("at")
	from, hasFrom := num("from")
	to, hasTo := num("to")
	if hasAt == (hasFrom || hasTo) || hasFrom != hasTo || hasFrom && (from == 0 || to < from) {
		http.Error(w, "want ?at=SEQ, or ?from=SEQ&to=SEQ with 0 < from ≤ to", http.StatusBadRequest)
		return
	}
	// The answer is read whole before anything is written, so that a
	// part of the history removed meanwhile is still a status, never a
	// cut-short body. Both forms are bounded: a range by
	// HistoryChunkBytes, a screen by a key frame and the frames up to the
	// next one (about KeyframeBytes).
	var body bytes.Buffer
	fw := attachwire.NewFileWriter(&body)
	var err error
	if hasAt {
		_, err = h.screenAt(at, fw)
	} else {
		var next uint64
		next, err = h.frames(from, to, HistoryChunkBytes, fw)
		w.Header().Set(NextSeqHeader, strconv.FormatUint(next, 10))
	}
	switch {
	case errors.Is(err, errHistoryGone):
		http.Error(w, "that part of the history is gone, or not there yet", http.StatusGone)
		return
	case err != nil:
		rl.log.Info("relay: history read", "err", err)
		http.Error(w, "history read failed", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "application/octet-stream")
	w.Header().Set("Cache-Control", "no-store")
	w.Write(body.Bytes())
}

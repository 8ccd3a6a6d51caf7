package relay

import (
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
)

// inputWindow is the stamped Input a room wrote to its host legs, kept so
// that what a leg took but its host may never have applied (the leg ended:
// a host closing its lane leg to upgrade, a dropped WebSocket) is written
// again, in order, to the next leg of the same epoch, if its host declared
// attachwire.InputDedupHeader (bindInputsLocked). The protocol has no
// host → relay ack for Input, so the relay cannot know what arrived; the
// host's dedup by (userId, penGeneration, inputSeq) makes the repeat
// harmless. Bounds are hard: count, bytes and age, oldest out first; an
// entry not yet written to the bound leg is never evicted (there is at
// most the replay plus one such entry at a time). Guarded by room.mu.
type inputWindow struct {
	maxCount int
	maxBytes int64
	maxAge   time.Duration

	entries []sentInput // oldest first
	bytes   int64
	next    uint64 // the id the next entry gets
}

// sentInput is one stamped Input frame the room wrote (or was writing) to
// a host leg.
type sentInput struct {
	id   uint64
	wire []byte
	at   time.Time // when it was taken for a host leg
}

// add appends a frame taken for a host leg and returns its id.
func (w *inputWindow) add(wire []byte, now time.Time) uint64 {
	id := w.next
	w.next++
	w.entries = append(w.entries, sentInput{id: id, wire: wire, at: now})
	w.bytes += int64(len(wire))
	return id
}

// evict drops the oldest entries past the bounds, keeping every entry
// with an id at or above keep (not yet written to the bound leg), and
// returns how many it dropped.
func (w *inputWindow) evict(now time.Time, keep uint64) int {
	n := 0
	for len(w.entries) > 0 {
		e := w.entries[0]
		over := len(w.entries) > w.maxCount || w.bytes > w.maxBytes || now.Sub(e.at) > w.maxAge
		if !over || e.id >= keep {
			break
		}
		w.entries[0] = sentInput{}
		w.entries = w.entries[1:]
		w.bytes -= int64(len(e.wire))
		n++
	}
	if len(w.entries) == 0 {
		w.entries = nil // let the backing array go
	}
	return n
}

// reset forgets every entry: they were meant for a process that is gone.
func (w *inputWindow) reset() {
	w.entries, w.bytes = nil, 0
}

// from returns the index of the first entry with an id at or above id.
func (w *inputWindow) from(id uint64) int {
	if len(w.entries) == 0 || id <= w.entries[0].id {
		return 0
	}
	return min(int(id-w.entries[0].id), len(w.entries))
}

// bindInputsLocked sets a host leg being bound where its writer starts in
// the window: for a host that declared InputDedupHeader, at the oldest entry
// still within the bounds (those are replays), then at what is taken from
// the queue from now on. A host that did not declare it gets no replay:
// it may not dedup at all on WebSocket, and the seed's carrier keeps its
// lane dedup set per lane leg, so a replay could type a key twice, which
// is no better than losing it. What the bounds expired, or what l does
// not get, is counted as unreplayed.
func (rm *room) bindInputsLocked(l *leg) {
	w := &rm.sent
	if n := w.evict(rm.relay.cfg.Now(), w.next); n > 0 {
		rm.unreplayedLocked(n, "past the window's bounds")
	}
	l.inNext, l.inFresh = w.next, w.next
	switch {
	case len(w.entries) == 0:
	case l.dedupAll:
		l.inNext = w.entries[0].id
	default:
		rm.unreplayedLocked(len(w.entries), "the host did not declare "+attachwire.InputDedupHeader)
	}
}

// slideInputsLocked runs when host leg l ends: the window slides past what
// l wrote more than ReplayAge ago, as it does while a leg is bound each
// time it takes Input. Its host has had the whole window to apply it, so
// it is not a loss when the next leg binds after a quiet spell (a lane
// host upgrading to WebSocket half a minute after its last key).
func (rm *room) slideInputsLocked(l *leg, now time.Time) {
	if n := rm.sent.evict(now, l.inNext); n > 0 {
		rm.relay.log.Debug("relay: input older than the replay window leaves it with its host leg",
			"room", rm.key.session, "inputs", n)
	}
}

// unreplayedLocked counts n Input frames written to a host leg that ended
// and not replayed to the next one, and warns the first time in each
// absence of the host: each was taken (or written) within ReplayAge of its
// leg's end, so its host may never have applied it.
func (rm *room) unreplayedLocked(n int, why string) {
	rm.relay.metrics.inputsUnreplayed.Add(float64(n))
	if !rm.unreplayedLogged {
		rm.unreplayedLogged = true
		rm.relay.log.Warn("relay: input written to a host leg that ended is not replayed",
			"room", rm.key.session, "inputs", n, "why", why)
	}
}

// takeInput moves the next stamped Input frame from the room's queue into
// the window for host leg l to write, and reports whether it took one. It
// takes nothing while l is not the bound host or has window frames still
// to write, so at most one taken frame waits unwritten. Taking and
// recording happen under rm.mu, where binding happens too: a writer whose
// leg was just superseded cannot take a frame from the queue and record it
// after one the new leg took, which would reorder the keystrokes. The
// window slides past entries the bound leg has written.
func (rm *room) takeInput(l *leg) bool {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	w := &rm.sent
	if rm.host != l || l.inNext != w.next {
		return false
	}
	select {
	case b := <-rm.inputs:
		rm.recordInputLocked(b)
		now := rm.relay.cfg.Now()
		w.add(b, now)
		w.evict(now, l.inNext)
		return true
	default:
		return false
	}
}

// nextInput returns the next frame of the window host leg l is to write,
// in order: the replay of what earlier legs took, if any, then what l's
// writer took itself. It reports false when there is none, or when l is
// no longer the bound host (whatever it took stays for the next leg).
func (rm *room) nextInput(l *leg) ([]byte, bool) {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	if rm.host != l {
		return nil, false
	}
	w := &rm.sent
	i := w.from(l.inNext)
	if i == len(w.entries) {
		l.inNext = w.next
		return nil, false
	}
	e := w.entries[i]
	l.inNext = e.id + 1
	if e.id < l.inFresh {
		rm.relay.metrics.inputsReplayed.Inc()
	}
	return e.wire, true
}

// writeInputs writes to host leg l what nextInput has for it; it reports
// false when a write failed (the leg is then ending).
func (l *leg) writeInputs() bool {
	for {
		b, ok := l.room.nextInput(l)
		if !ok {
			return true
		}
		if err := l.write(b); err != nil {
			l.writeFailed(err)
			return false
		}
	}
}

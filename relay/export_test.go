package relay

import (
	"errors"
	"sync"

	"github.com/ptyhost/ptyhost/attachwire"
)

// IngestAsHost returns a function that takes a frame into room (orgID,
// sessionID) exactly as the reader of its bound host leg does: sanitize,
// encode, append to the ring, wake the viewers. Benchmarks use it to time
// the publish path beside real viewer sockets without the host's socket in
// the measurement.
func IngestAsHost(rl *Relay, orgID, sessionID string) func(attachwire.Frame) error {
	rl.mu.Lock()
	rm := rl.rooms[roomKey{org: orgID, session: sessionID}]
	rl.mu.Unlock()
	if rm == nil {
		return func(attachwire.Frame) error { return errors.New("relay: no such room") }
	}
	rm.mu.Lock()
	h := rm.host
	rm.mu.Unlock()
	if h == nil {
		return func(attachwire.Frame) error { return errors.New("relay: no host leg bound") }
	}
	return func(f attachwire.Frame) error { return rm.ingest(h, f) }
}

// HeadSeq returns the newest seq room (orgID, sessionID) has taken from
// its host, 0 if none or no such room: tests wait on it instead of
// guessing when frames in flight have arrived.
func HeadSeq(rl *Relay, orgID, sessionID string) uint64 {
	rl.mu.Lock()
	rm := rl.rooms[roomKey{org: orgID, session: sessionID}]
	rl.mu.Unlock()
	if rm == nil {
		return 0
	}
	return rm.ring.headSeq()
}

// StallClusterPublishes holds every publish of the cluster traffic of
// rl's rooms until the returned function is called (once or more): a
// NATS connection whose writes block.
func StallClusterPublishes(rl *Relay) (release func()) {
	ch := make(chan struct{})
	rl.cluster.stall.Store(&ch)
	var once sync.Once
	return func() {
		once.Do(func() {
			rl.cluster.stall.Store(nil)
			close(ch)
		})
	}
}

// RingWires returns a copy of every frame the ring of room (orgID,
// sessionID) holds, with its cached final screen and Exit, as they sit in
// memory: a sealed room's test looks in them for plaintext.
func RingWires(rl *Relay, orgID, sessionID string) [][]byte {
	rl.mu.Lock()
	rm := rl.rooms[roomKey{org: orgID, session: sessionID}]
	rl.mu.Unlock()
	if rm == nil {
		return nil
	}
	r := rm.ring
	r.mu.Lock()
	defer r.mu.Unlock()
	var out [][]byte
	for i := range r.n {
		out = append(out, append([]byte(nil), r.entries[(r.start+i)%len(r.entries)].wire...))
	}
	for _, b := range [][]byte{r.exit, r.final, r.finalBefore} {
		if b != nil {
			out = append(out, append([]byte(nil), b...))
		}
	}
	return out
}

// OutFinal and OutHeader describe a room's output subject to a test that
// listens on it: the kind byte of the message carrying the post-Exit
// snapshot, and the header (kind, more, epoch, arg) before every body.
const (
	OutFinal  = outFinal
	OutHeader = outHeader
)

// ClusterQueuedBytes returns the output of room (orgID, sessionID) queued
// for other nodes and not yet handed to NATS (0 if none or no such room).
func ClusterQueuedBytes(rl *Relay, orgID, sessionID string) int64 {
	rl.mu.Lock()
	rm := rl.rooms[roomKey{org: orgID, session: sessionID}]
	rl.mu.Unlock()
	if rm == nil || rm.cl == nil {
		return 0
	}
	rm.cl.out.mu.Lock()
	defer rm.cl.out.mu.Unlock()
	return rm.cl.out.bytes
}

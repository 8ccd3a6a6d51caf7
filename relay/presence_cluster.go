package relay

import "slices"

// presenceFanout sends one presence update's frames: a leg of this node
// gets its frame queued, and the members standing in for another node's
// legs are gathered so that each node gets one message per frame for all
// its legs (legMany), not one per leg: a join storm's NATS messages then
// grow with the updates and the nodes, not with the room's size squared.
type presenceFanout struct {
	rm    *room
	nodes map[string]*nodeFrames
	order []string // nodes in first-seen order
}

// nodeFrames is one node's share of an update: each frame, in the order
// first sent, with the legs it goes to.
type nodeFrames struct {
	wires [][]byte
	legs  [][]string
}

// maxLegsPerMessage bounds the legs one legMany message names (about 10
// bytes each), so a message stays far below NATS's payload limit.
const maxLegsPerMessage = 4096

func newPresenceFanout(rm *room) *presenceFanout {
	return &presenceFanout{rm: rm}
}

// send queues wire for v (nothing for a nil wire); v is not a member
// being admitted (flushPresenceLocked leaves those to the next update).
func (f *presenceFanout) send(v *leg, wire []byte) {
	if wire == nil {
		return
	}
	if v.remote == nil {
		v.sendWire(wire)
		return
	}
	if f.nodes == nil {
		f.nodes = make(map[string]*nodeFrames)
	}
	nf := f.nodes[v.remote.node]
	if nf == nil {
		nf = &nodeFrames{}
		f.nodes[v.remote.node] = nf
		f.order = append(f.order, v.remote.node)
	}
	for i, w := range nf.wires {
		if &w[0] == &wire[0] {
			nf.legs[i] = append(nf.legs[i], v.remote.id)
			return
		}
	}
	nf.wires = append(nf.wires, wire)
	nf.legs = append(nf.legs, []string{v.remote.id})
}

// isJoining reports whether a member is being admitted (its controls go
// in its join's answer).
func (l *leg) isJoining() bool {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.joining
}

// flush posts the gathered messages on the room's outbox, behind what
// the room queued for those legs before.
func (f *presenceFanout) flush() {
	if len(f.order) == 0 {
		return
	}
	c, ob := f.rm.relay.cluster, &f.rm.cl.out
	for _, node := range f.order {
		nf := f.nodes[node]
		subject := nodeSubject(node, "legs")
		for i, wire := range nf.wires {
			for legs := range slices.Chunk(nf.legs[i], maxLegsPerMessage) {
				b := appendLegMsg(nil, legMsg{Legs: legs, Wire: wire})
				c.post(ob, func() { c.publish(subject, b) })
			}
		}
	}
}

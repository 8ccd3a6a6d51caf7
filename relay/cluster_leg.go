package relay

import (
	"context"
	"time"

	"github.com/coder/websocket"
	"github.com/nats-io/nats.go"
	"github.com/ptyhost/ptyhost/attachwire"
)

// remoteRef names the leg of another node a member stands in for.
type remoteRef struct{ node, id string }

// sendRemote sends a member's control to its leg's node, or keeps it for
// the join's reply while the member is being admitted.
func (l *leg) sendRemote(wire []byte) {
	l.mu.Lock()
	if l.joining {
		l.joined = append(l.joined, wire)
		l.mu.Unlock()
		return
	}
	l.mu.Unlock()
	l.postRemote(legMsg{Leg: l.remote.id, Wire: wire})
}

// postRemote queues m for a member's leg on its room's outbox, behind
// what the room queued before (a caller may hold room.mu or l.mu).
func (l *leg) postRemote(m legMsg) {
	c, subject, b := l.relay.cluster, nodeSubject(l.remote.node, "legs"), appendLegMsg(nil, m)
	c.post(&l.room.cl.out, func() { c.publish(subject, b) })
}

// endRemote tells a member's leg to end with ctl, code and reason; a
// relay closing (or restarting) ends its members without a word, so their
// legs stay on their nodes and follow the room to the next owner.
func (l *leg) endRemote(ctl *attachwire.ErrorControl, code websocket.StatusCode, reason string) {
	c := l.relay.cluster
	if l.relay.ctx.Err() != nil {
		c.dropRemote(l)
		return
	}
	msg := legMsg{Leg: l.remote.id, End: true, Code: uint16(code), Why: reason}
	if ctl != nil {
		msg.Wire, _ = controlWire(*ctl)
	}
	l.postRemote(msg)
	c.dropRemote(l)
}

// deliver hands an owner's message to one of this node's legs.
func (c *cluster) deliver(m *nats.Msg) {
	msg, err := decodeLegMsg(m.Data)
	if err != nil {
		return
	}
	if msg.Legs != nil {
		c.deliverMany(msg)
		return
	}
	c.mu.Lock()
	l := c.locals[msg.Leg]
	c.mu.Unlock()
	if l == nil {
		return
	}
	if !msg.End {
		l.sendWire(msg.Wire)
		return
	}
	var ctl *attachwire.ErrorControl
	if f, err := attachwire.DecodeFrame(msg.Wire); err == nil {
		if cc, err := attachwire.DecodeControl(f.Payload); err == nil {
			if e, ok := cc.(attachwire.ErrorControl); ok {
				ctl = &e
			}
		}
	}
	l.end(ctl, websocket.StatusCode(msg.Code), msg.Why)
}

// deliverMany queues one control for each of the legs a legMany names.
func (c *cluster) deliverMany(msg legMsg) {
	legs := make([]*leg, 0, len(msg.Legs))
	c.mu.Lock()
	for _, id := range msg.Legs {
		if l := c.locals[id]; l != nil {
			legs = append(legs, l)
		}
	}
	c.mu.Unlock()
	for _, l := range legs {
		l.sendWire(msg.Wire)
	}
}

// inputRemote carries a mirror leg's Input to the owner and waits for it to
// be queued there: the leg's reader stops meanwhile, as on one node. An
// unanswered request is repeated (the owner's inputSeq order makes a repeat
// harmless); it gives up only when the leg ends.
func (l *leg) inputRemote(in attachwire.Input) bool {
	c := l.relay.cluster
	l.holding.Store(true)
	defer func() {
		l.holding.Store(false)
		l.heard()
	}()
	for {
		id := l.clusterID()
		if id == "" {
			// The room became this node's own while the Input waited:
			// it is consumed here now.
			l.holding.Store(false)
			return l.input(in)
		}
		// The Input frame is encoded once, after the routing fields, into
		// the request itself.
		b, err := in.Frame(0, 0).AppendBinary(appendClusterOp(nil, clusterOp{Op: opInput, Node: c.node, Leg: id}))
		if err != nil {
			return true
		}
		ctx, cancel := context.WithTimeout(l.ctx, clusterTimeout)
		m, err := c.nc.RequestWithContext(ctx, roomSubject(l.room.cl.name, "in"), b)
		cancel()
		if err == nil && string(m.Data) == "ok" {
			l.mu.Lock()
			l.remoteAck = max(l.remoteAck, in.InputSeq)
			l.mu.Unlock()
			return true
		}
		t := time.NewTimer(100 * time.Millisecond)
		select {
		case <-t.C:
		case <-l.closing:
			t.Stop()
			return false
		case <-l.ctx.Done():
			t.Stop()
			return false
		}
	}
}

// forwardRemote sends a mirror leg's Resize, grab or release to the owner;
// it reports false when the leg is not registered elsewhere. It publishes
// at once, from the leg's reader, which holds no lock: the owner then
// sees it before the leg's next Input request, as the leg sent them (the
// outbox would let that request overtake it).
func (l *leg) forwardRemote(op clusterOp) bool {
	id := l.clusterID()
	if id == "" {
		return false
	}
	c := l.relay.cluster
	op.Node, op.Leg = c.node, id
	c.publish(roomSubject(l.room.cl.name, "in"), appendClusterOp(nil, op))
	return true
}

func (l *leg) clusterID() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.cid
}

// setClusterID sets the leg's id among this node's registered legs and
// returns the previous one.
func (l *leg) setClusterID(id string) string {
	l.mu.Lock()
	defer l.mu.Unlock()
	old := l.cid
	l.cid = id
	return old
}

// register gives one of this node's legs the id it is known by to
// another node's room.
func (c *cluster) register(l *leg, id string) {
	l.setClusterID(id)
	c.mu.Lock()
	defer c.mu.Unlock()
	c.locals[id] = l
}

// unregister forgets a leg of this node (l.cid may already be cleared: the
// map is searched).
func (c *cluster) unregister(l *leg) {
	c.mu.Lock()
	defer c.mu.Unlock()
	for id, v := range c.locals {
		if v == l {
			delete(c.locals, id)
		}
	}
}

func (c *cluster) addRemote(l *leg) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.remotes[l.remote.node+"/"+l.remote.id] = l
}

func (c *cluster) remote(node, id string) *leg {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.remotes[node+"/"+id]
}

func (c *cluster) dropRemote(l *leg) {
	c.mu.Lock()
	key := l.remote.node + "/" + l.remote.id
	if c.remotes[key] == l {
		delete(c.remotes, key)
	}
	c.mu.Unlock()
	l.cancel()
}

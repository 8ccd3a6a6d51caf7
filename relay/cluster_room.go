package relay

import (
	"encoding/binary"
	"errors"
	"math"
	"sync"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/ptyhost/ptyhost/attachwire"
)

// The kinds of message on a room's output subject (and in a fetch answer).
const (
	outFrame    byte = iota + 1 // a ring entry: arg is a Snapshot's atSeq
	outFinal                    // the Exit frame, then the post-Exit snapshot: arg is the Exit's length
	outGen                      // the stream of epoch starts (mirrors reset on a new one)
	outHostLost                 // arg: the loss instant in unix nanoseconds; 0: a host is bound
	outEnd                      // the end of a fetch answer
)

// outHeader is kind, more, epoch and arg: what precedes the body.
const outHeader = 1 + 1 + 8 + 8

// roomCluster is a room's part in the cluster. owner, ownerNode, rev,
// since, ownerLost and looked are guarded by room.mu; inSub and outSub
// belong to the room's outbox (only its tasks touch them); gate guards
// what fills the ring of a mirror (the subscription, a fetch, and what the
// subscription holds while a fetch runs).
//
// No room lock is held across a call into NATS: what the room sends other
// nodes, and the changes of its subscriptions, are decided under room.mu
// and queued on its outbox, which carries them out in that order with no
// lock held (see outbox); a fetch waits for its answer holding nothing,
// and the first joiner looks the owner up holding nothing.
type roomCluster struct {
	c    *cluster
	name string

	owner     bool      // this node holds the room's host (the bucket names it)
	ownerNode string    // a mirror: the node whose room this one follows
	rev       uint64    // the bucket revision of the entry followed last
	since     time.Time // a mirror's: when it began following ownerNode
	ownerLost bool      // a mirror's: its viewers were told the owner is silent
	// looked is made by the room's first joiner and closed once it has
	// looked the owner up; later joiners wait for it.
	looked chan struct{}

	out    outbox
	inSub  *nats.Subscription // the owner's: the room's input subject
	outSub *nats.Subscription // a mirror's: the room's output subject

	gate      sync.Mutex
	parts     []byte   // the subscription's message being joined from parts
	fetching  int      // fetches under way: the subscription's messages wait
	held      [][]byte // the subscription's messages held meanwhile, in order
	heldBytes int64
	heldCut   bool // held outgrew the ring and was dropped: a gap
}

// outbox is a room's traffic to other nodes: publishes, and the changes
// of its subscriptions. The room queues each as it decides it, mostly
// under room.mu, and one goroutine at a time carries the queue out, first
// in first out, holding no room lock. Order still holds: every message of
// the room is queued under its lock in the order the room's state changed
// (the ring's order for frames, the order of sendWire for a remote leg's
// controls), the queue keeps that order, and NATS keeps one connection's
// order on a subject, so other nodes see the room's messages in the order
// they did when the room published under its lock. A subscription change
// queued with them takes effect in the same order (an owner that became
// a mirror and back cannot end up subscribed to the wrong subject). A NATS
// connection that blocks holds back this queue, never the room's legs.
type outbox struct {
	mu      sync.Mutex // a leaf lock
	q       []func()
	running bool  // a goroutine is carrying the queue out
	bytes   int64 // output bodies queued (frames past RingBytes are dropped)
}

// post queues f on ob and starts the goroutine that carries the queue
// out if none runs.
func (c *cluster) post(ob *outbox, f func()) {
	ob.mu.Lock()
	defer ob.mu.Unlock()
	ob.q = append(ob.q, f)
	if ob.running {
		return
	}
	c.drainsMu.Lock()
	defer c.drainsMu.Unlock()
	if c.drained {
		ob.q = nil // the relay is closed
		return
	}
	c.drains.Add(1)
	ob.running = true
	go c.drain(ob)
}

// drain carries ob's queue out until it is empty.
func (c *cluster) drain(ob *outbox) {
	defer c.drains.Done()
	for {
		ob.mu.Lock()
		q := ob.q
		ob.q = nil
		if len(q) == 0 {
			ob.running = false
			ob.mu.Unlock()
			return
		}
		ob.mu.Unlock()
		for _, f := range q {
			f()
		}
	}
}

// publish sends one message of the cluster's traffic.
func (c *cluster) publish(subject string, data []byte) error {
	if ch := c.stall.Load(); ch != nil {
		<-*ch
	}
	return c.nc.Publish(subject, data)
}

// publishOut sends one output message, split into parts flagged "more"
// when it exceeds the connection's max payload. NATS keeps one
// publisher's order on one subject, so the parts never interleave.
func (c *cluster) publishOut(subject string, kind byte, epoch, arg uint64, body []byte) {
	chunk := c.maxPayload - outHeader - 512 // room for the protocol's own headers
	for {
		n := min(len(body), chunk)
		more := n < len(body)
		msg := make([]byte, outHeader, outHeader+n)
		msg[0] = kind
		if more {
			msg[1] = 1
		}
		binary.BigEndian.PutUint64(msg[2:], epoch)
		binary.BigEndian.PutUint64(msg[10:], arg)
		msg = append(msg, body[:n]...)
		c.published.Inc()
		if err := c.publish(subject, msg); err != nil {
			c.rl.log.Info("relay: cluster publish failed", "subject", subject, "err", err)
			return
		}
		body = body[n:]
		if !more {
			return
		}
	}
}

// publishedLocked is the owner's hook on every change of its stream: each
// ring entry, the final snapshot, a new generation, the host's loss, once on
// the room's output subject, queued on the room's outbox in the ring's
// order. Standalone, and on a mirror, it does nothing. A frame finding the
// outbox already holding RingBytes of output (NATS does not take it) is
// dropped: the mirrors see a gap and resync, as after any.
func (rm *room) publishedLocked(kind byte, arg uint64, wire []byte) {
	cl := rm.cl
	if cl == nil || !cl.owner {
		return
	}
	ob, n := &cl.out, int64(len(wire))
	ob.mu.Lock()
	full := kind == outFrame && ob.bytes+n > rm.relay.cfg.RingBytes
	if !full {
		ob.bytes += n
	}
	ob.mu.Unlock()
	if full {
		return
	}
	c, subject, epoch := cl.c, roomSubject(cl.name, "out"), rm.epoch
	c.post(ob, func() {
		c.publishOut(subject, kind, epoch, arg, wire)
		ob.mu.Lock()
		ob.bytes -= n
		ob.mu.Unlock()
	})
}

// ownedLocked runs when a host binds here: the room is this node's. A room
// that was a mirror stops following; its legs become this node's own (they
// get the presence list and the pen's state from here, and a driver takes a
// free pen).
func (rm *room) ownedLocked() {
	cl := rm.cl
	if cl == nil {
		return
	}
	if !cl.owner {
		cl.owner, cl.ownerNode = true, ""
		// A mirror's pen was the owner's; this node's generations start
		// at its clock, above any the old owner can have handed out
		// (penBase), so a host's dedup triples do not repeat.
		rm.pen.gen = max(rm.pen.gen, penBase(rm.relay.cfg.Now()))
		cl.c.post(&cl.out, func() {
			if cl.outSub != nil {
				cl.outSub.Unsubscribe()
				cl.outSub = nil
			}
			if cl.inSub == nil {
				sub, err := cl.c.nc.Subscribe(roomSubject(cl.name, "in"), rm.serveIn)
				if err != nil {
					rm.relay.log.Info("relay: cluster subscribe failed", "room", rm.key.session, "err", err)
				}
				cl.inSub = sub
			}
		})
		for v := range rm.viewers {
			if v.setClusterID("") != "" {
				cl.c.unregister(v)
				// Its Input order goes on here from where the old owner
				// left it.
				v.mu.Lock()
				ack := v.remoteAck
				v.mu.Unlock()
				rm.acks[v.jti] = max(rm.acks[v.jti], ack)
			}
			rm.penJoinLocked(v)
			rm.sendPendingLocked(v)
		}
		rm.presenceResyncLocked()
	}
	rm.publishedLocked(outGen, 0, nil)
	rm.publishedLocked(outHostLost, 0, nil)
}

// adoptMirrorEpochLocked lets a mirror that a host of its stream's epoch
// binds to resume that stream instead of starting a new generation.
func (rm *room) adoptMirrorEpochLocked() {
	if rm.cl == nil || rm.cl.owner || rm.hasEpoch {
		return
	}
	r := rm.ring
	r.mu.Lock()
	defer r.mu.Unlock()
	if r.hasEpoch {
		rm.hasEpoch, rm.epoch, rm.exitSeq = true, r.epoch, r.exitSeq
	}
}

// claimHost registers this node as the room's owner before a host of
// epoch e binds (standalone: nothing to do).
func (rm *room) claimHost(e uint64) error {
	if rm.cl == nil {
		return nil
	}
	if err := rm.cl.c.claim(rm.key, e); err != nil {
		return err
	}
	rm.mu.Lock()
	rm.adoptMirrorEpochLocked()
	rm.mu.Unlock()
	return nil
}

// closedCluster is the room's cluster teardown: subscriptions end, and an
// owner whose room ends for good (not the relay closing) deletes its entry.
func (rm *room) closedCluster() {
	cl := rm.cl
	if cl == nil {
		return
	}
	rm.mu.Lock()
	owner := cl.owner
	rm.mu.Unlock()
	cl.c.post(&cl.out, func() {
		for _, s := range []*nats.Subscription{cl.inSub, cl.outSub} {
			if s != nil {
				s.Unsubscribe()
			}
		}
		cl.inSub, cl.outSub = nil, nil
	})
	if owner && rm.relay.ctx.Err() == nil {
		cl.c.forgetRoom(cl.name)
	}
}

// serveIn answers what a mirror asks of this owner's room.
func (rm *room) serveIn(m *nats.Msg) {
	op, err := decodeClusterOp(m.Data)
	if err != nil {
		return
	}
	c := rm.cl.c
	switch op.Op {
	case opJoin:
		m.Respond(appendJoinReply(nil, rm.joinRemote(op)))
		return
	case opQueued:
		if rm.queueHandedOver(op.Wire) {
			m.Respond([]byte("ok"))
		}
		return
	case opFetch:
		rm.answerFetch(m.Reply)
		return
	case opSnapshot:
		rm.requestSnapshot(attachwire.SnapshotReason(op.Reason))
		return
	}
	l := c.remote(op.Node, op.Leg)
	if l == nil {
		if m.Reply != "" {
			m.Respond([]byte("gone"))
		}
		return
	}
	switch op.Op {
	case opLeave:
		c.dropRemote(l)
		rm.removeViewer(l)
	case opInput:
		f, err := attachwire.DecodeFrame(op.Wire)
		if err != nil || f.Type != attachwire.TypeInput {
			return
		}
		in, err := attachwire.DecodeInput(f.Payload)
		if err != nil {
			return
		}
		if !l.input(in) {
			m.Respond([]byte("gone"))
			return
		}
		m.Respond([]byte("ok"))
	case opResize:
		rm.resizeFrom(l, attachwire.Resize{Cols: op.Cols, Rows: op.Rows})
	case opGrab:
		rm.grab(l)
	case opRelease:
		rm.release(l)
	case opPropose:
		if c, err := attachwire.ParseControl(op.Wire); err == nil {
			if p, ok := c.(attachwire.Propose); ok && attachwire.ValidatePropose(p) == nil {
				rm.proposeFor(l, p)
			}
		}
	case opDecide:
		if c, err := attachwire.ParseControl(op.Wire); err == nil {
			if d, ok := c.(attachwire.Decision); ok && attachwire.ValidateDecision(d) == nil {
				rm.decide(l, d)
			}
		}
	case opPresence:
		rm.requestPresence(l)
	}
}

// joinRemote admits a leg of another node as a member standing in for it
// here; what the room sends it later goes to that node's legs subject.
func (rm *room) joinRemote(op clusterOp) joinReply {
	c := rm.cl.c
	if rm.relay.isKicked(rm.key, op.JTI) {
		return joinReply{Status: joinKicked}
	}
	if old := c.remote(op.Node, op.Leg); old != nil {
		// The same leg registering again: its node lost track of this
		// room's answer. The new member replaces the old.
		c.dropRemote(old)
		rm.removeViewer(old)
	}
	l := newLeg(rm.relay, nil, op.Role, op.User, op.JTI, rm.relay.log.With("org", rm.key.org, "room", rm.key.session,
		"role", string(op.Role), "user", op.User, "node", op.Node))
	l.remote = &remoteRef{node: op.Node, id: op.Leg}
	l.name, l.guest, l.exp, l.propose = op.Name, op.Guest, int64(min(op.Exp, math.MaxInt64)), op.Propose
	l.sealed = op.Sealed
	l.presCounts = op.Counts
	l.room = rm
	if op.Cols != 0 && op.Rows != 0 {
		l.viewport = &attachwire.Viewport{Cols: op.Cols, Rows: op.Rows}
	}
	rm.mu.Lock()
	if op.Ack > rm.acks[op.JTI] {
		rm.acks[op.JTI] = op.Ack
	}
	// The leg has heard its node's pen at op.Pen: what this room tells it
	// must not read as older than that.
	rm.pen.gen = max(rm.pen.gen, op.Pen)
	rm.mu.Unlock()
	c.addRemote(l)
	l.mu.Lock()
	l.joining = true
	l.mu.Unlock()
	err := rm.addViewer(l)
	l.mu.Lock()
	wires := l.joined
	l.joining, l.joined = false, nil
	l.mu.Unlock()
	if err == nil && op.Held {
		// It held its node's pen and holds this one now: the keys it
		// stamped before it heard of this grant are still the holder's.
		rm.mu.Lock()
		if rm.pen.holder == l {
			l.penAlias, l.penAliasAt = op.Pen, rm.pen.gen
		}
		rm.mu.Unlock()
	}
	switch {
	case err == nil:
		return joinReply{Status: joinOK, Wires: wires}
	case errors.Is(err, errRoomFull):
		c.dropRemote(l)
		return joinReply{Status: joinFull}
	case errors.As(err, new(*errSealed)):
		c.dropRemote(l)
		w, _ := controlWire(attachwire.ErrorControl{Code: attachwire.CodeSealed, Message: err.(*errSealed).msg})
		return joinReply{Status: joinSealed, Wires: [][]byte{w}}
	default:
		c.dropRemote(l)
		return joinReply{Status: joinClosed}
	}
}

// answerFetch sends a new mirror what it needs to start: the stream's
// epoch, the host's state, the newest snapshot whose tail fits a viewer's
// headroom and that tail, the Exit frame (if that tail lacks it), the final
// snapshot, then the end mark.
func (rm *room) answerFetch(reply string) {
	if reply == "" {
		return
	}
	type item struct {
		kind  byte
		arg   uint64
		wire  []byte
		epoch uint64
	}
	var items []item
	rm.mu.Lock()
	r := rm.ring
	r.mu.Lock()
	if r.hasEpoch {
		items = append(items, item{kind: outGen, epoch: r.epoch})
		lost := uint64(0)
		if !r.hostLostAt.IsZero() {
			lost = uint64(r.hostLostAt.UnixNano())
		}
		items = append(items, item{kind: outHostLost, arg: lost, epoch: r.epoch})
		tailHasExit := false
		if e := r.newestSnapshotLocked(rm.relay.cfg.ViewerQueueBytes); e != nil {
			for s := e.seq; s <= r.head; s++ {
				x, _ := r.atLocked(s)
				items = append(items, item{kind: outFrame, arg: x.atSeq, wire: x.wire, epoch: r.epoch})
			}
			tailHasExit = r.exit != nil
		}
		if r.exit != nil && !tailHasExit {
			// The mirror's late joiners get the session's status with the
			// final snapshot, as here: the Exit frame alone starts its ring.
			items = append(items, item{kind: outFrame, wire: r.exit, epoch: r.epoch})
		}
		if r.final != nil {
			arg, body := finalBody(r.exit, r.final)
			items = append(items, item{kind: outFinal, arg: arg, wire: body, epoch: r.epoch})
		}
	}
	r.mu.Unlock()
	rm.mu.Unlock()
	// Published here, not queued: the reply inbox is the fetching
	// mirror's alone, and what the room queued before the answer's
	// snapshot reaches the mirror's subscription, which it applies after
	// the answer (a duplicate is dropped there by seq).
	c := rm.cl.c
	for _, it := range items {
		c.publishOut(reply, it.kind, it.epoch, it.arg, it.wire)
	}
	c.publishOut(reply, outEnd, 0, 0, nil)
}

// publishFinalLocked is publishedLocked for the post-Exit snapshot: the
// Exit frame travels again in the same message, so that no mirror serves
// the final screen without the session's status (a mirror that lost the
// Exit frame on the way would otherwise have nothing to give its viewers
// after that screen).
func (rm *room) publishFinalLocked(final []byte) {
	if rm.cl == nil || !rm.cl.owner {
		return
	}
	arg, body := finalBody(rm.ring.exitWire(), final)
	rm.publishedLocked(outFinal, arg, body)
}

// finalBody is the body of an outFinal message and its arg: the Exit
// frame (none if exit is nil), then the post-Exit snapshot.
func finalBody(exit, final []byte) (arg uint64, body []byte) {
	if exit == nil {
		return 0, final
	}
	return uint64(len(exit)), append(append(make([]byte, 0, len(exit)+len(final)), exit...), final...)
}

// splitFinal undoes finalBody; ok is false when arg does not fit body.
func splitFinal(arg uint64, body []byte) (exit, final []byte, ok bool) {
	if arg > uint64(len(body)) {
		return nil, nil, false
	}
	if arg == 0 {
		return nil, body, true
	}
	return body[:arg], body[arg:], true
}

// queueHandedOver queues for the host an Input frame a mirror accepted
// while it had no owner to follow (handOver): the pen that admitted it
// was that node's, so only its form is checked here. It waits for room
// in the queue as a driver's Input does, up to clusterTimeout, and
// reports whether the frame was queued.
func (rm *room) queueHandedOver(wire []byte) bool {
	f, err := attachwire.DecodeFrame(wire)
	if err != nil || f.Type != attachwire.TypeInput {
		return false
	}
	w := append([]byte(nil), wire...)
	t := time.NewTimer(clusterTimeout)
	defer t.Stop()
	select {
	case rm.inputs <- w:
	case <-t.C:
		return false
	case <-rm.relay.ctx.Done():
		return false
	}
	rm.relay.metrics.inputsForwarded.Inc()
	rm.signalHost()
	return true
}

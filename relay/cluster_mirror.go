package relay

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"

	"github.com/coder/websocket"
	"github.com/nats-io/nats.go"
	"github.com/ptyhost/ptyhost/attachwire"
)

// mirrorMsg applies one message of the owner's output subject, or holds
// it while a fetch runs: it applies after the fetch's answer.
func (rm *room) mirrorMsg(m *nats.Msg) {
	cl := rm.cl
	cl.c.applied.Inc()
	cl.gate.Lock()
	defer cl.gate.Unlock()
	if cl.fetching == 0 {
		rm.applyOut(m.Data, &cl.parts)
		return
	}
	if cl.heldCut {
		return
	}
	if cl.heldBytes += int64(len(m.Data)); cl.heldBytes > rm.relay.cfg.RingBytes {
		// More than the ring holds arrived during the fetch: keep none of
		// it; fetchedLocked cuts the ring and asks for a resync.
		cl.held, cl.heldBytes, cl.heldCut = nil, 0, true
		return
	}
	cl.held = append(cl.held, m.Data)
}

// fetchedLocked ends a fetch: once none runs, what the subscription held
// meanwhile applies, in order. cl.gate is held.
func (rm *room) fetchedLocked() {
	cl := rm.cl
	if cl.fetching--; cl.fetching > 0 {
		return
	}
	held, cut := cl.held, cl.heldCut
	cl.held, cl.heldBytes, cl.heldCut = nil, 0, false
	if cut {
		cl.parts = nil
		rm.relay.log.Info("relay: cluster stream outran a fetch, ring truncated", "room", rm.key.session)
		rm.ring.truncate()
		cl.c.gaps.Inc()
		rm.askOwner(clusterOp{Op: opSnapshot, Reason: string(attachwire.SnapshotResync)})
		return
	}
	for _, d := range held {
		rm.applyOut(d, &cl.parts)
	}
}

// applyOut applies one output message (or part of one) to a mirror's ring
// (mirrorFrame). It reports the end of a fetch answer.
func (rm *room) applyOut(data []byte, parts *[]byte) bool {
	if len(data) < outHeader {
		return false
	}
	kind, more := data[0], data[1] == 1
	epoch := binary.BigEndian.Uint64(data[2:])
	arg := binary.BigEndian.Uint64(data[10:])
	body := data[outHeader:]
	if more {
		if int64(len(*parts)+len(body)) > rm.relay.cfg.HostReadLimit+4096 {
			*parts = nil // a message beyond any frame's size: drop it, the gap resyncs
			return false
		}
		*parts = append(*parts, body...)
		return false
	}
	if len(*parts) > 0 {
		body = append(*parts, body...)
		*parts = nil
	}
	r := rm.ring
	switch kind {
	case outGen:
		r.adopt(epoch)
	case outHostLost:
		t := time.Time{}
		if arg != 0 {
			t = time.Unix(0, int64(arg))
		}
		r.setHostLost(t)
	case outFinal:
		exit, final, ok := splitFinal(arg, body)
		if !ok {
			return false
		}
		if exit != nil {
			// The Exit comes again with the final screen: a mirror that
			// lost it on the way (a dropped message, a stalled owner's
			// overflow) still has it before its viewers are served the
			// final screen, whose tail it is. One that has it drops the
			// repeat by its seq.
			rm.mirrorFrame(epoch, 0, exit)
		}
		r.setFinal(final)
	case outEnd:
		return true
	case outFrame:
		rm.mirrorFrame(epoch, arg, body)
	}
	return false
}

// mirrorFrame appends one frame of the owner's stream to a mirror's ring:
// a frame past head+1 is a gap, cut and resynced like a host's; a frame at
// or below the head is a duplicate. arg is a Snapshot's atSeq.
func (rm *room) mirrorFrame(epoch, arg uint64, wire []byte) {
	f, err := attachwire.DecodeFrame(wire)
	if err != nil {
		return
	}
	r := rm.ring
	r.adopt(epoch)
	head := r.headSeq()
	switch {
	case head != 0 && f.Seq <= head:
		return
	case head != 0 && f.Seq > head+1:
		rm.relay.log.Info("relay: cluster stream gap, ring truncated", "room", rm.key.session, "head", head, "seq", f.Seq)
		r.truncate()
		rm.cl.c.gaps.Inc()
		rm.askOwner(clusterOp{Op: opSnapshot, Reason: string(attachwire.SnapshotResync)})
	}
	r.append(f.Seq, f.Type, arg, wire)
}

// adopt starts the ring afresh if epoch is not its stream's.
func (r *ring) adopt(epoch uint64) {
	r.mu.Lock()
	same := r.hasEpoch && r.epoch == epoch
	r.mu.Unlock()
	if !same {
		r.reset(epoch)
	}
}

// askOwner queues an op that needs no answer for the owner on the room's
// outbox (a caller may hold room.mu).
func (rm *room) askOwner(op clusterOp) {
	c, subject, b := rm.cl.c, roomSubject(rm.cl.name, "in"), appendClusterOp(nil, op)
	c.post(&rm.cl.out, func() { c.publish(subject, b) })
}

// fetch fills a mirror's ring from the owner (answerFetch). The
// subscription's messages arriving meanwhile are held, and apply after
// the answer (fetchedLocked); no lock is held while the answer is awaited.
func (c *cluster) fetch(rm *room) {
	cl := rm.cl
	cl.gate.Lock()
	cl.fetching++
	cl.gate.Unlock()
	defer func() {
		cl.gate.Lock()
		rm.fetchedLocked()
		cl.gate.Unlock()
	}()
	inbox := c.nc.NewInbox()
	sub, err := c.nc.SubscribeSync(inbox)
	if err != nil {
		return
	}
	defer sub.Unsubscribe()
	req := appendClusterOp(nil, clusterOp{Op: opFetch, Node: c.node})
	if err := c.nc.PublishRequest(roomSubject(cl.name, "in"), inbox, req); err != nil {
		return
	}
	var parts []byte
	ctx, cancel := context.WithTimeout(c.rl.ctx, clusterTimeout)
	defer cancel()
	for {
		m, err := sub.NextMsgWithContext(ctx)
		if err != nil {
			return
		}
		cl.gate.Lock()
		end := rm.applyOut(m.Data, &parts)
		cl.gate.Unlock()
		if end {
			return
		}
	}
}

// mirrorOf returns the node a room follows, or "" when this node owns it
// or nobody does, looking the owner up for the room's first joiner; the
// joiners behind it wait for the lookup (or for ctx), holding no lock.
func (c *cluster) mirrorOf(ctx context.Context, rm *room) string {
	cl := rm.cl
	rm.mu.Lock()
	looked, first := cl.looked, cl.looked == nil
	if first {
		looked = make(chan struct{})
		cl.looked = looked
	}
	rm.mu.Unlock()
	if first {
		o, err := c.owner(rm.key)
		close(looked)
		if err == nil && o.Node != "" && o.Node != c.node {
			c.follow(rm, o)
		}
	} else {
		select {
		case <-looked:
		case <-ctx.Done():
		}
	}
	rm.mu.Lock()
	defer rm.mu.Unlock()
	if cl.owner {
		return ""
	}
	return cl.ownerNode
}

// follow makes the room a mirror of o.Node: an owner superseded there
// closes its stale host leg and lets the members standing for other nodes'
// legs go; the room's own legs register with the new owner. A room left
// with no leg closes.
func (c *cluster) follow(rm *room, o ownerRecord) {
	cl := rm.cl
	rm.mu.Lock()
	if rm.closed || (!cl.owner && o.rev <= cl.rev) {
		// Closed, or an entry this room already follows (the first
		// joiner's lookup and the watch may both report it).
		rm.mu.Unlock()
		return
	}
	cl.rev = o.rev
	// Input this room queued for a host of its stream (or for its first
	// host) is the new owner's to deliver; a new epoch's host is another
	// process, for which it was never meant.
	carry := !rm.hasEpoch || rm.epoch == o.Epoch
	if cl.owner {
		cl.owner = false
		if rm.host != nil {
			old := rm.host
			rm.host = nil
			old.end(&attachwire.ErrorControl{Code: attachwire.CodeEpochStale,
				Message: fmt.Sprintf("superseded by epoch %d on another relay node", o.Epoch)},
				websocket.StatusPolicyViolation, "epoch-stale")
		}
		for v := range rm.viewers {
			if v.remote != nil {
				delete(rm.viewers, v)
				c.dropRemote(v)
			}
		}
	}
	cl.ownerNode, cl.since, cl.ownerLost = o.Node, rm.relay.cfg.Now(), false
	rm.hasEpoch = false // the stream is the owner's now
	queued := rm.handOffLocked(carry)
	rm.pen.grace.stop()
	// The owner's pen rules now. Should this room ever grant its own again
	// (the owner dies before another node takes the room over), it starts
	// from the clock, as a new room does, and so above any generation the
	// owner gave: a client ignores a pen older than the newest it heard.
	rm.pen = pen{gen: max(rm.pen.gen, penBase(rm.relay.cfg.Now()))}
	legs := make([]*leg, 0, len(rm.viewers))
	for v := range rm.viewers {
		legs = append(legs, v)
	}
	// The subscription to the output subject must reach NATS before the
	// fetch does, or what the owner publishes between its answer and the
	// subscription would be a gap: the fetch waits for the outbox to have
	// made it.
	subscribed := make(chan struct{})
	c.post(&cl.out, func() {
		defer close(subscribed)
		if cl.inSub != nil {
			cl.inSub.Unsubscribe()
			cl.inSub = nil
		}
		if cl.outSub == nil {
			sub, err := c.nc.Subscribe(roomSubject(cl.name, "out"), rm.mirrorMsg)
			if err != nil {
				rm.relay.log.Info("relay: cluster subscribe failed", "room", rm.key.session, "err", err)
			}
			cl.outSub = sub
		}
	})
	rm.mu.Unlock()
	select {
	case <-subscribed:
	case <-c.rl.ctx.Done():
		return
	}
	c.fetch(rm)
	queued = append(queued, rm.settleHandOff(carry)...)
	c.handOver(rm, queued)
	for _, l := range legs {
		c.joinOwner(rm, l)
		// A leg that left meanwhile told an owner that did not know it
		// yet: the owner is told again, after the join, or it would keep
		// a member (and perhaps the pen) for nobody.
		rm.mu.Lock()
		if _, here := rm.viewers[l]; !here {
			rm.askOwner(clusterOp{Op: opLeave, Node: c.node, Leg: l.clusterID()})
		}
		rm.mu.Unlock()
	}
}

// handOffLocked readies the room's legs for the owner it begins to
// follow, in one step with the pen's reset: each is registered (from now
// on its Input goes to the owner, which holds it until the leg has
// joined, instead of meeting a pen that is no one's here), and its join
// will carry the last inputSeq this room consumed from it and the pen it
// heard here. It takes the Input queued for a host here, for handOver,
// if carry is set, and drops it otherwise.
func (rm *room) handOffLocked(carry bool) (queued [][]byte) {
	c := rm.cl.c
	for v := range rm.viewers {
		v.mu.Lock()
		v.penGen, v.penHeld = rm.pen.gen, rm.pen.holder == v
		v.mu.Unlock()
		if v.clusterID() == "" {
			c.register(v, c.legID())
		}
	}
	return rm.takeQueuedLocked(carry)
}

// takeQueuedLocked carries each leg's consumed inputSeq to its join and
// takes the Input queued for a host here (drops it, unless carry).
func (rm *room) takeQueuedLocked(carry bool) (queued [][]byte) {
	for v := range rm.viewers {
		v.mu.Lock()
		v.remoteAck = max(v.remoteAck, rm.acks[v.jti])
		v.mu.Unlock()
	}
	if !carry {
		rm.drainInputsLocked()
		return nil
	}
	for {
		select {
		case b := <-rm.inputs:
			queued = append(queued, b)
		default:
			return queued
		}
	}
}

// settleHandOff waits (up to clusterTimeout) for the Input its legs'
// readers admitted here before handOffLocked registered them to be
// queued, and takes it as handOffLocked did, with the inputSeqs it
// consumed.
func (rm *room) settleHandOff(carry bool) [][]byte {
	deadline := time.Now().Add(clusterTimeout)
	for {
		rm.mu.Lock()
		if rm.admitting == 0 || time.Now().After(deadline) {
			defer rm.mu.Unlock()
			return rm.takeQueuedLocked(carry)
		}
		rm.mu.Unlock()
		time.Sleep(time.Millisecond)
	}
}

// handOver gives the owner, in order, the Input this room acknowledged
// and queued before it followed that owner, ahead of its legs' joins
// (and so of any later Input of theirs). What the owner does not take
// within the timeout is lost, and logged.
func (c *cluster) handOver(rm *room, queued [][]byte) {
	for i, w := range queued {
		m, err := c.requestOwner(rm, appendClusterOp(nil, clusterOp{Op: opQueued, Node: c.node, Wire: w}))
		if err != nil || string(m.Data) != "ok" {
			rm.relay.metrics.inputsDropped.Add(float64(len(queued) - i))
			rm.relay.log.Warn("relay: input acknowledged before the room followed its owner was not handed over",
				"room", rm.key.session, "inputs", len(queued)-i, "err", err)
			return
		}
	}
}

// requestOwner sends b to the owner of the room and returns its answer.
// A node that has just won the room subscribes to its input subject
// right after the bucket names it: no responder yet is worth a few more
// tries within the timeout.
func (c *cluster) requestOwner(rm *room, b []byte) (*nats.Msg, error) {
	ctx, cancel := context.WithTimeout(c.rl.ctx, clusterTimeout)
	defer cancel()
	for {
		m, err := c.nc.RequestWithContext(ctx, roomSubject(rm.cl.name, "in"), b)
		if !errors.Is(err, nats.ErrNoResponders) {
			return m, err
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case <-ctx.Done():
			return nil, ctx.Err()
		}
	}
}

// joinOwner registers one of this node's legs with the owner's room.
func (c *cluster) joinOwner(rm *room, l *leg) joinStatus {
	st, _ := c.joinOwnerWhy(rm, l)
	return st
}

// joinOwnerWhy is joinOwner that also returns, for joinSealed, the
// sentence the owner turned the leg away with.
func (c *cluster) joinOwnerWhy(rm *room, l *leg) (joinStatus, string) {
	op := clusterOp{Op: opJoin, Node: c.node, Leg: l.clusterID(), Role: l.role, User: l.userID, JTI: l.jti,
		Name: l.name, Guest: l.guest, Counts: l.presCounts, Propose: l.propose, Exp: uint64(max(l.exp, 0)), Sealed: l.sealed}
	l.mu.Lock()
	if l.viewport != nil {
		op.Cols, op.Rows = l.viewport.Cols, l.viewport.Rows
	}
	op.Ack = l.remoteAck
	op.Pen, op.Held = l.penGen, l.penHeld && l.penGen != 0
	l.mu.Unlock()
	m, err := c.requestOwner(rm, appendClusterOp(nil, op))
	if err != nil {
		return joinUnreachable, ""
	}
	r, err := decodeJoinReply(m.Data)
	if err != nil {
		return joinUnreachable, ""
	}
	if r.Status == joinSealed {
		return joinSealed, sealedWhy(r.Wires)
	}
	for _, w := range r.Wires {
		l.sendWire(w)
	}
	return r.Status, ""
}

// join admits a driver or viewer leg: standalone, or in a room this node
// owns or nobody owns, as on one node; in a mirror, registered with the
// owner, which sends it room_state, presence and the pen. An owner that
// cannot be reached leaves the leg here, waiting as for a host.
func (rm *room) join(l *leg) error {
	if rm.cl == nil {
		return rm.addViewer(l)
	}
	c := rm.cl.c
	if c.mirrorOf(l.ctx, rm) == "" {
		rm.mu.Lock()
		if rm.cl.owner || rm.cl.ownerNode == "" {
			defer rm.mu.Unlock()
			return rm.addViewerLocked(l)
		}
		// The room began following another node since the lookup, and
		// took its legs there without this one: it joins there, or it
		// would wait here for a host that binds elsewhere.
		rm.mu.Unlock()
	}
	rm.mu.Lock()
	switch {
	case rm.closed:
		rm.mu.Unlock()
		return errRoomClosed
	case rm.relay.draining.Load():
		rm.mu.Unlock()
		return errDraining
	case len(rm.viewers) >= rm.relay.cfg.MaxViewersPerRoom:
		rm.mu.Unlock()
		return errRoomFull
	}
	rm.viewers[l] = struct{}{}
	c.register(l, c.legID())
	rm.mu.Unlock()
	switch st, why := c.joinOwnerWhy(rm, l); st {
	case joinOK:
		return nil
	case joinSealed:
		rm.dropMirrorLeg(l)
		return &errSealed{msg: why}
	case joinFull:
		rm.dropMirrorLeg(l)
		return errRoomFull
	case joinKicked:
		rm.dropMirrorLeg(l)
		return errKicked
	default:
		// The owner is gone or closing: wait here as for a host; a node
		// that takes the room over is followed (watchOwners) and the leg
		// registers there.
		rm.mu.Lock()
		delete(rm.viewers, l)
		c.unregister(l)
		l.setClusterID("")
		rm.mu.Unlock()
		return rm.addViewer(l)
	}
}

// dropMirrorLeg takes a mirror's leg out of the room without telling the
// owner (it was never admitted there).
func (rm *room) dropMirrorLeg(l *leg) {
	rm.mu.Lock()
	defer rm.mu.Unlock()
	delete(rm.viewers, l)
	rm.cl.c.unregister(l)
}

// leaveMirrorLocked is removeViewer for a leg registered with another
// node's room: the owner is told, and a mirror left with no leg closes.
func (rm *room) leaveMirrorLocked(l *leg) (closeNow bool) {
	c := rm.cl.c
	rm.askOwner(clusterOp{Op: opLeave, Node: c.node, Leg: l.clusterID()})
	c.unregister(l)
	return len(rm.viewers) == 0 && !rm.cl.owner && rm.host == nil
}

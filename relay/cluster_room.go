package relay

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/nats-io/nats.go"
	"github.com/ptyhost/ptyhost/attachwire"
)

// The kinds of message on a room's output subject (and in a fetch answer).
const (
	outFrame    byte = iota + 1 // a ring entry: arg is a Snapshot's atSeq
	outFinal                    // the post-Exit snapshot
	outGen                      // the stream of epoch starts (mirrors reset on a new one)
	outHostLost                 // arg: the loss instant in unix nanoseconds; 0: a host is bound
	outEnd                      // the end of a fetch answer
)

// outHeader is kind, more, epoch and arg: what precedes the body.
const outHeader = 1 + 1 + 8 + 8

// roomCluster is a room's part in the cluster. owner, ownerNode, inSub and
// outSub are guarded by room.mu; gate serialises what fills the ring of a
// mirror (the subscription and a fetch); parts belongs to the
// subscription's goroutine.
type roomCluster struct {
	c    *cluster
	name string

	owner     bool               // this node holds the room's host (the bucket names it)
	ownerNode string             // a mirror: the node whose room this one follows
	inSub     *nats.Subscription // the owner's: the room's input subject
	outSub    *nats.Subscription // a mirror's: the room's output subject
	rev       uint64             // the bucket revision of the entry followed last
	since     time.Time          // a mirror's: when it began following ownerNode
	ownerLost bool               // a mirror's: its viewers were told the owner is silent

	prep  sync.Mutex // held while the first joiner looks up the owner
	known bool       // the owner was looked up (guarded by prep)
	gate  sync.Mutex
	parts []byte
}

// clusterOp is what a mirror asks of a room's owner on its input subject.
type clusterOp struct {
	Op     string          `json:"op"` // join, leave, input, resize, grab, release, snapshot, fetch
	Node   string          `json:"node,omitempty"`
	Leg    string          `json:"leg,omitempty"`
	Role   attachwire.Role `json:"role,omitempty"`
	User   string          `json:"user,omitempty"`
	JTI    string          `json:"jti,omitempty"`
	Cols   uint32          `json:"cols,omitempty"`
	Rows   uint32          `json:"rows,omitempty"`
	Ack    uint64          `json:"ack,omitempty"` // join: the last inputSeq the leg's owner acknowledged
	Reason string          `json:"reason,omitempty"`
	Wire   []byte          `json:"wire,omitempty"`
}

// legMsg is what an owner sends one of a mirror's legs on the mirror node's
// legs subject: a control to queue, or the leg's end.
type legMsg struct {
	Leg  string `json:"leg"`
	End  bool   `json:"end,omitempty"`
	Wire []byte `json:"wire,omitempty"` // a control frame; with End, the error to send first
	Code int    `json:"code,omitempty"`
	Why  string `json:"why,omitempty"`
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
		if err := c.nc.Publish(subject, msg); err != nil {
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
// the room's output subject. Standalone, and on a mirror, it does nothing.
func (rm *room) publishedLocked(kind byte, arg uint64, wire []byte) {
	if rm.cl == nil || !rm.cl.owner {
		return
	}
	rm.cl.c.publishOut(roomSubject(rm.cl.name, "out"), kind, rm.epoch, arg, wire)
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
		if cl.outSub != nil {
			cl.outSub.Unsubscribe()
			cl.outSub = nil
		}
		sub, err := cl.c.nc.Subscribe(roomSubject(cl.name, "in"), rm.serveIn)
		if err != nil {
			rm.relay.log.Info("relay: cluster subscribe failed", "room", rm.key.session, "err", err)
		}
		cl.inSub = sub
		members := make([]attachwire.Member, 0, len(rm.viewers))
		for v := range rm.viewers {
			members = append(members, v.member(false))
		}
		for v := range rm.viewers {
			if v.setClusterID("") != "" {
				cl.c.unregister(v)
			}
			v.send(attachwire.Presence{Op: attachwire.PresenceList, Members: members})
			rm.penJoinLocked(v)
		}
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
	for _, s := range []*nats.Subscription{cl.inSub, cl.outSub} {
		if s != nil {
			s.Unsubscribe()
		}
	}
	cl.inSub, cl.outSub = nil, nil
	rm.mu.Unlock()
	if owner && rm.relay.ctx.Err() == nil {
		cl.c.forgetRoom(cl.name)
	}
}

// serveIn answers what a mirror asks of this owner's room.
func (rm *room) serveIn(m *nats.Msg) {
	var op clusterOp
	if err := json.Unmarshal(m.Data, &op); err != nil {
		return
	}
	c := rm.cl.c
	if op.Op == "join" {
		b, _ := json.Marshal(rm.joinRemote(op))
		m.Respond(b)
		return
	}
	if op.Op == "fetch" {
		rm.answerFetch(m.Reply)
		return
	}
	if op.Op == "snapshot" {
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
	case "leave":
		c.dropRemote(l)
		rm.removeViewer(l)
	case "input":
		f, err := attachwire.DecodeFrame(op.Wire)
		if err != nil {
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
	case "resize":
		rm.resizeFrom(l, attachwire.Resize{Cols: op.Cols, Rows: op.Rows})
	case "grab":
		rm.grab(l)
	case "release":
		rm.release(l)
	}
}

// joinReply answers a join: the status, and the controls the joiner is
// sent on admission (room_state, presence, the pen), carried in the reply
// so that its node queues them before the leg's first frame.
type joinReply struct {
	Status string   `json:"status"` // ok, full, closed
	Wires  [][]byte `json:"wires,omitempty"`
}

// joinRemote admits a leg of another node as a member standing in for it
// here; what the room sends it later goes to that node's legs subject.
func (rm *room) joinRemote(op clusterOp) joinReply {
	c := rm.cl.c
	if old := c.remote(op.Node, op.Leg); old != nil {
		// The same leg registering again: its node lost track of this
		// room's answer. The new member replaces the old.
		c.dropRemote(old)
		rm.removeViewer(old)
	}
	l := newLeg(rm.relay, nil, op.Role, op.User, op.JTI, rm.relay.log.With("org", rm.key.org, "room", rm.key.session,
		"role", string(op.Role), "user", op.User, "node", op.Node))
	l.remote = &remoteRef{node: op.Node, id: op.Leg}
	l.room = rm
	if op.Cols != 0 && op.Rows != 0 {
		l.viewport = &attachwire.Viewport{Cols: op.Cols, Rows: op.Rows}
	}
	rm.mu.Lock()
	if op.Ack > rm.acks[op.JTI] {
		rm.acks[op.JTI] = op.Ack
	}
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
	switch {
	case err == nil:
		return joinReply{Status: "ok", Wires: wires}
	case errors.Is(err, errRoomFull):
		c.dropRemote(l)
		return joinReply{Status: "full"}
	default:
		c.dropRemote(l)
		return joinReply{Status: "closed"}
	}
}

// answerFetch sends a new mirror what it needs to start: the stream's
// epoch, the host's state, the newest snapshot whose tail fits a viewer's
// headroom and that tail, the final snapshot, then the end mark.
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
		if e := r.newestSnapshotLocked(rm.relay.cfg.ViewerQueueBytes); e != nil {
			for s := e.seq; s <= r.head; s++ {
				x, _ := r.atLocked(s)
				items = append(items, item{kind: outFrame, arg: x.atSeq, wire: x.wire, epoch: r.epoch})
			}
		}
		if r.final != nil {
			items = append(items, item{kind: outFinal, wire: r.final, epoch: r.epoch})
		}
	}
	r.mu.Unlock()
	rm.mu.Unlock()
	c := rm.cl.c
	for _, it := range items {
		c.publishOut(reply, it.kind, it.epoch, it.arg, it.wire)
	}
	c.publishOut(reply, outEnd, 0, 0, nil)
}

// mirrorMsg applies one message of the owner's output subject.
func (rm *room) mirrorMsg(m *nats.Msg) {
	cl := rm.cl
	cl.gate.Lock()
	defer cl.gate.Unlock()
	rm.applyOut(m.Data, &cl.parts)
}

// applyOut applies one output message (or part of one) to a mirror's ring:
// a frame past head+1 is a gap, cut and resynced like a host's; a frame at
// or below the head is a duplicate. It reports the end of a fetch answer.
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
		r.setFinal(body)
	case outEnd:
		return true
	case outFrame:
		f, err := attachwire.DecodeFrame(body)
		if err != nil {
			return false
		}
		r.adopt(epoch)
		head := r.headSeq()
		switch {
		case head != 0 && f.Seq <= head:
			return false
		case head != 0 && f.Seq > head+1:
			rm.relay.log.Info("relay: cluster stream gap, ring truncated", "room", rm.key.session, "head", head, "seq", f.Seq)
			r.truncate()
			rm.askOwner(clusterOp{Op: "snapshot", Reason: string(attachwire.SnapshotResync)})
		}
		r.append(f.Seq, f.Type, arg, body)
	}
	return false
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

// askOwner sends the owner an op that needs no answer.
func (rm *room) askOwner(op clusterOp) {
	b, _ := json.Marshal(op)
	rm.cl.c.nc.Publish(roomSubject(rm.cl.name, "in"), b)
}

// fetch fills a mirror's ring from the owner (answerFetch), holding the
// gate so the subscription's messages apply after it.
func (c *cluster) fetch(rm *room) {
	cl := rm.cl
	cl.gate.Lock()
	defer cl.gate.Unlock()
	inbox := c.nc.NewInbox()
	sub, err := c.nc.SubscribeSync(inbox)
	if err != nil {
		return
	}
	defer sub.Unsubscribe()
	b, _ := json.Marshal(clusterOp{Op: "fetch", Node: c.node})
	if err := c.nc.PublishRequest(roomSubject(cl.name, "in"), inbox, b); err != nil {
		return
	}
	var parts []byte
	deadline := time.Now().Add(clusterTimeout)
	for {
		m, err := sub.NextMsg(time.Until(deadline))
		if err != nil || rm.applyOut(m.Data, &parts) {
			return
		}
	}
}

// mirrorOf returns the node a room follows, or "" when this node owns it
// or nobody does, looking the owner up for the room's first joiner.
func (c *cluster) mirrorOf(rm *room) string {
	cl := rm.cl
	cl.prep.Lock()
	if !cl.known {
		cl.known = true
		o, err := c.owner(rm.key)
		cl.prep.Unlock()
		if err == nil && o.Node != "" && o.Node != c.node {
			c.follow(rm, o)
		}
	} else {
		cl.prep.Unlock()
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
	if cl.owner {
		cl.owner = false
		if rm.host != nil {
			old := rm.host
			rm.host = nil
			old.end(&attachwire.ErrorControl{Code: attachwire.CodeEpochStale,
				Message: fmt.Sprintf("superseded by epoch %d on another relay node", o.Epoch)},
				websocket.StatusPolicyViolation, "epoch-stale")
		}
		if cl.inSub != nil {
			cl.inSub.Unsubscribe()
			cl.inSub = nil
		}
		for v := range rm.viewers {
			if v.remote != nil {
				delete(rm.viewers, v)
				c.dropRemote(v)
			}
		}
	}
	cl.ownerNode, cl.since, cl.ownerLost = o.Node, time.Now(), false
	rm.hasEpoch = false // the stream is the owner's now
	rm.pen.grace.stop()
	rm.pen = pen{}
	legs := make([]*leg, 0, len(rm.viewers))
	for v := range rm.viewers {
		legs = append(legs, v)
	}
	if cl.outSub == nil {
		sub, err := c.nc.Subscribe(roomSubject(cl.name, "out"), rm.mirrorMsg)
		if err != nil {
			rm.relay.log.Info("relay: cluster subscribe failed", "room", rm.key.session, "err", err)
		}
		cl.outSub = sub
	}
	rm.mu.Unlock()
	c.fetch(rm)
	for _, l := range legs {
		if l.clusterID() == "" {
			c.register(l, c.legID())
		}
		c.joinOwner(rm, l)
	}
}

// joinOwner registers one of this node's legs with the owner's room.
func (c *cluster) joinOwner(rm *room, l *leg) string {
	op := clusterOp{Op: "join", Node: c.node, Leg: l.clusterID(), Role: l.role, User: l.userID, JTI: l.jti}
	l.mu.Lock()
	if l.viewport != nil {
		op.Cols, op.Rows = l.viewport.Cols, l.viewport.Rows
	}
	op.Ack = l.remoteAck
	l.mu.Unlock()
	b, _ := json.Marshal(op)
	// A node that has just won the room subscribes to its input subject
	// right after the bucket names it: no responder yet is worth a few
	// more tries within the timeout.
	deadline := time.Now().Add(clusterTimeout)
	for {
		m, err := c.nc.Request(roomSubject(rm.cl.name, "in"), b, clusterTimeout)
		if err == nil {
			var r joinReply
			if json.Unmarshal(m.Data, &r) != nil {
				return "unreachable"
			}
			for _, w := range r.Wires {
				l.sendWire(w)
			}
			return r.Status
		}
		if !errors.Is(err, nats.ErrNoResponders) || time.Now().After(deadline) {
			return "unreachable"
		}
		select {
		case <-time.After(20 * time.Millisecond):
		case <-c.stop:
			return "unreachable"
		}
	}
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
	if c.mirrorOf(rm) == "" {
		return rm.addViewer(l)
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
	switch c.joinOwner(rm, l) {
	case "ok":
		return nil
	case "full":
		rm.dropMirrorLeg(l)
		return errRoomFull
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
	rm.askOwner(clusterOp{Op: "leave", Node: c.node, Leg: l.clusterID()})
	c.unregister(l)
	return len(rm.viewers) == 0 && !rm.cl.owner && rm.host == nil
}

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
	c := l.relay.cluster
	b, _ := json.Marshal(legMsg{Leg: l.remote.id, Wire: wire})
	c.nc.Publish(nodeSubject(l.remote.node, "legs"), b)
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
	msg := legMsg{Leg: l.remote.id, End: true, Code: int(code), Why: reason}
	if ctl != nil {
		msg.Wire, _ = controlWire(*ctl)
	}
	b, _ := json.Marshal(msg)
	c.nc.Publish(nodeSubject(l.remote.node, "legs"), b)
	c.dropRemote(l)
}

// deliver hands an owner's message to one of this node's legs.
func (c *cluster) deliver(m *nats.Msg) {
	var msg legMsg
	if json.Unmarshal(m.Data, &msg) != nil {
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

// inputRemote carries a mirror leg's Input to the owner and waits for it to
// be queued there: the leg's reader stops meanwhile, as on one node. An
// unanswered request is repeated (the owner's inputSeq order makes a repeat
// harmless); it gives up only when the leg ends.
func (l *leg) inputRemote(in attachwire.Input) bool {
	c := l.relay.cluster
	wire, err := in.Frame(0, 0).MarshalBinary()
	if err != nil {
		return true
	}
	l.holding.Store(true)
	defer func() {
		l.holding.Store(false)
		l.heard()
	}()
	for {
		b, _ := json.Marshal(clusterOp{Op: "input", Node: c.node, Leg: l.clusterID(), Wire: wire})
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
// it reports false when the leg is not registered elsewhere.
func (l *leg) forwardRemote(op clusterOp) bool {
	id := l.clusterID()
	if id == "" {
		return false
	}
	op.Node, op.Leg = l.relay.cluster.node, id
	l.room.askOwner(op)
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

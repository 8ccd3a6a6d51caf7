package relay

import (
	"slices"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
)

// Presence is coalesced: joins and leaves wait in the room for its next
// update, sent at most every PresenceEvery (longer in a large room, see
// presenceInterval), and each update is encoded once per form whoever
// gets it. A join after a quiet spell is sent at once. A leg sees the room
// through one of two forms:
//
//   - the original one: a presence list when it joins (at the first update
//     after its join), then the update's leaves and joins;
//   - the counts form, for a leg that subscribed with
//     attachwire.PresenceCounts while the room has more than
//     PresenceListMax members: a presence_count with the total and a
//     bounded list, the list only when it changed for that leg; the whole
//     list on presence_request. When the room shrinks to half the
//     threshold the leg gets a presence list again, then joins and leaves.
//
// The host leg always gets the original form. So a join costs O(1)
// frames per leg per update instead of one per leg per join, and a leg's
// view after each update is the room's membership then.

// presenceShown is how many members a presence_count lists: the pen
// holder first, then the earliest to join.
const presenceShown = 10

// presenceScale is the room size from which the update interval grows
// with the room: an update goes to every leg, so spacing them by the
// room's size bounds the frames a room sends per second.
const presenceScale = 500

// presence is a room's pending presence update, under room.mu.
type presence struct {
	joined []*leg // joined since the last update, in order
	left   []*leg // announced members that left since the last update
	// passed joined and left within one interval: the room's legs are
	// not told of them, the host is (its sharer sees who came and went).
	passed []*leg
	order  uint64 // the last join's number
	last   time.Time
	timer  *timer
	timerN uint64 // numbers the timers, so that a late one does nothing
	asked  bool   // a leg asked for the whole list
	counts bool   // the room is past the threshold
	shown  []attachwire.Member
	// shownGen counts the changes of shown; a leg's presShown is the one
	// it was sent.
	shownGen uint64
}

// presenceJoinLocked puts l in the room's next presence update.
func (rm *room) presenceJoinLocked(l *leg) {
	p := &rm.pres
	p.order++
	l.presOrder, l.presAnnounced, l.presSeen, l.presInCounts, l.presShown = p.order, false, false, false, 0
	p.joined = append(p.joined, l)
	rm.presenceDueLocked()
}

// presenceLeaveLocked puts l's leave in the next update; a leg nobody
// was told of leaves without a word.
func (rm *room) presenceLeaveLocked(l *leg) {
	p := &rm.pres
	if !l.presAnnounced {
		p.joined = slices.DeleteFunc(p.joined, func(v *leg) bool { return v == l })
		if rm.host != nil {
			p.passed = append(p.passed, l)
			rm.presenceDueLocked()
		}
		return
	}
	p.left = append(p.left, l)
	rm.presenceDueLocked()
}

// requestPresence is a leg's presence_request: the whole list goes to it
// with the next update.
func (rm *room) requestPresence(l *leg) {
	if l.forwardRemote(clusterOp{Op: opPresence}) {
		return
	}
	rm.mu.Lock()
	defer rm.mu.Unlock()
	if _, ok := rm.viewers[l]; !ok {
		return
	}
	l.presAsked = true
	rm.pres.asked = true
	rm.presenceDueLocked()
}

// presenceDueLocked sends the update now if the last one is an interval
// old, else makes sure one is scheduled.
func (rm *room) presenceDueLocked() {
	p := &rm.pres
	if p.timer != nil || rm.closed {
		return
	}
	wait := rm.presenceInterval() - rm.relay.cfg.Now().Sub(p.last)
	if wait <= 0 {
		rm.flushPresenceLocked()
		return
	}
	p.timerN++
	n := p.timerN
	p.timer = rm.relay.afterFunc(wait, func() {
		rm.mu.Lock()
		defer rm.mu.Unlock()
		if rm.pres.timerN == n && !rm.closed {
			rm.pres.timer = nil
			rm.flushPresenceLocked()
		}
	})
}

// presenceInterval is the least time between two updates of the room.
func (rm *room) presenceInterval() time.Duration {
	d := rm.relay.cfg.PresenceEvery
	if n := len(rm.viewers); n > presenceScale {
		d = d * time.Duration(n) / presenceScale
	}
	return d
}

// presenceWires encodes each form of one update once, on demand.
type presenceWires struct {
	rm                        *room
	leave, join               []byte
	list, counts, countsShown []byte
	complete                  []byte
}

func (w *presenceWires) wire(dst *[]byte, c func() attachwire.Control) []byte {
	if *dst == nil {
		b, err := controlWire(c())
		if err != nil {
			w.rm.relay.log.Error("relay: encode presence", "err", err)
			return nil
		}
		*dst = b
	}
	return *dst
}

// flushPresenceLocked sends the pending update: to each leg the form it
// reads, to the host the leaves and joins.
func (rm *room) flushPresenceLocked() {
	p := &rm.pres
	p.timer.stop()
	p.timer = nil
	p.timerN++
	changed := len(p.joined) > 0 || len(p.left) > 0
	if !changed && !p.asked && len(p.passed) == 0 {
		return
	}
	p.last = rm.relay.cfg.Now()
	n := len(rm.viewers)
	limit := rm.relay.cfg.PresenceListMax
	p.counts = n > limit || (p.counts && n > limit/2)
	w := presenceWires{rm: rm}
	if len(p.left) > 0 {
		ms := make([]attachwire.Member, len(p.left))
		for i, v := range p.left {
			ms[i] = v.member(false)
		}
		w.wire(&w.leave, func() attachwire.Control { return attachwire.Presence{Op: attachwire.PresenceLeave, Members: ms} })
	}
	if len(p.joined) > 0 {
		ms := make([]attachwire.Member, len(p.joined))
		for i, v := range p.joined {
			ms[i] = v.member(rm.pen.holder == v)
			v.presAnnounced = true // the room is told now
		}
		w.wire(&w.join, func() attachwire.Control { return attachwire.Presence{Op: attachwire.PresenceJoin, Members: ms} })
	}
	var all []attachwire.Member
	members := func() []attachwire.Member {
		if all == nil {
			all = rm.membersLocked(false)
		}
		return all
	}
	if p.counts {
		if shown := rm.shownLocked(); !slices.Equal(shown, p.shown) {
			p.shown = shown
			p.shownGen++
		}
	}
	out := newPresenceFanout(rm)
	again := false
	for v := range rm.viewers {
		if v.remote == nil && v.clusterID() != "" {
			continue // registered with another node's room, which tells it
		}
		if v.remote != nil && v.isJoining() && !v.presSeen {
			// Its node could queue the join's answer after what the
			// legs subject brings: its first view waits for the next
			// update, which follows the answer on that subject.
			again = true
			continue
		}
		fresh := !v.presSeen
		v.presSeen = true
		asked := v.presAsked
		v.presAsked = false
		if v.presCounts && p.counts {
			switch {
			case asked:
				out.send(v, w.wire(&w.complete, func() attachwire.Control {
					return attachwire.PresenceCount{Total: uint32(n), Members: members(), Complete: true}
				}))
				v.presShown = 0 // the next update lists the shown ones again
			case fresh || !v.presInCounts || v.presShown != p.shownGen:
				out.send(v, w.wire(&w.countsShown, func() attachwire.Control {
					return attachwire.PresenceCount{Total: uint32(n), Members: p.shown}
				}))
				v.presShown = p.shownGen
			case changed:
				out.send(v, w.wire(&w.counts, func() attachwire.Control { return attachwire.PresenceCount{Total: uint32(n)} }))
			}
			v.presInCounts = true
			continue
		}
		switch {
		case fresh || asked || v.presInCounts:
			out.send(v, w.wire(&w.list, func() attachwire.Control {
				return attachwire.Presence{Op: attachwire.PresenceList, Members: members()}
			}))
			v.presInCounts = false
		default:
			if w.leave != nil {
				out.send(v, w.leave)
			}
			if w.join != nil {
				out.send(v, w.join)
			}
		}
	}
	if rm.host != nil {
		rm.hostPresenceLocked(&w)
	}
	out.flush()
	// Cleared, not only cut: the arrays would keep gone legs alive.
	clear(p.joined)
	clear(p.left)
	clear(p.passed)
	p.joined, p.left, p.passed, p.asked = p.joined[:0], p.left[:0], p.passed[:0], false
	if again {
		p.asked = true
		rm.presenceDueLocked()
	}
}

// hostPresenceLocked sends the host leg the update's leaves and joins,
// and the comings and goings the room's legs are not told of: a join
// and then a leave.
func (rm *room) hostPresenceLocked(w *presenceWires) {
	h, passed := rm.host, rm.pres.passed
	if w.leave != nil {
		h.sendWire(w.leave)
	}
	if len(passed) == 0 {
		if w.join != nil {
			h.sendWire(w.join)
		}
		return
	}
	joins := make([]attachwire.Member, 0, len(rm.pres.joined)+len(passed))
	for _, v := range rm.pres.joined {
		joins = append(joins, v.member(rm.pen.holder == v))
	}
	leaves := make([]attachwire.Member, len(passed))
	for i, v := range passed {
		joins = append(joins, v.member(false))
		leaves[i] = v.member(false)
	}
	h.send(attachwire.Presence{Op: attachwire.PresenceJoin, Members: joins})
	h.send(attachwire.Presence{Op: attachwire.PresenceLeave, Members: leaves})
}

// membersLocked returns the room's members in the order they joined;
// announced limits it to those the room's legs have been told of, with
// those whose leave they have not been told of yet (the view a host leg
// binding now must start from, so that the next update applies to it).
func (rm *room) membersLocked(announced bool) []attachwire.Member {
	legs := make([]*leg, 0, len(rm.viewers)+len(rm.pres.left))
	for v := range rm.viewers {
		if !announced || v.presAnnounced {
			legs = append(legs, v)
		}
	}
	if announced {
		legs = append(legs, rm.pres.left...)
	}
	slices.SortFunc(legs, func(a, b *leg) int { return compareOrder(a.presOrder, b.presOrder) })
	ms := make([]attachwire.Member, len(legs))
	for i, v := range legs {
		ms[i] = v.member(rm.pen.holder == v)
	}
	return ms
}

func compareOrder(a, b uint64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// shownLocked returns the members a presence_count lists: the pen
// holder, then the earliest to join, presenceShown in all.
func (rm *room) shownLocked() []attachwire.Member {
	first := make([]*leg, 0, presenceShown+1)
	for v := range rm.viewers {
		if v == rm.pen.holder {
			continue
		}
		i, _ := slices.BinarySearchFunc(first, v.presOrder, func(a *leg, o uint64) int { return compareOrder(a.presOrder, o) })
		if i < presenceShown {
			first = slices.Insert(first, i, v)
			if len(first) > presenceShown {
				first = first[:presenceShown]
			}
		}
	}
	ms := make([]attachwire.Member, 0, presenceShown)
	if h := rm.pen.holder; h != nil {
		if _, ok := rm.viewers[h]; ok {
			ms = append(ms, h.member(true))
		}
	}
	for _, v := range first {
		if len(ms) == presenceShown {
			break
		}
		ms = append(ms, v.member(false))
	}
	return ms
}

// presenceResyncLocked makes every leg's next update a whole view, as
// for a leg that just joined (the room became this node's own), and sends
// it now.
func (rm *room) presenceResyncLocked() {
	if len(rm.viewers) == 0 {
		return
	}
	for v := range rm.viewers {
		// Every leg gets the whole list: each is known to all.
		v.presSeen, v.presAnnounced = false, true
		if v.presOrder == 0 {
			rm.pres.order++
			v.presOrder = rm.pres.order
		}
	}
	rm.pres.asked = true // an update even with nothing pending
	rm.flushPresenceLocked()
}

package relay_test

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/relaytest"
)

// typist is a driver leg that types as a client does: each key stamped
// with the pen generation it last heard (a generation below the last one
// heard is an older message overtaken), kept until acknowledged, and
// numbered again from the ack when an ack goes back (the relay lost the
// count). It tells which of its keys the relay refused: those it was told
// pen_revoked (naming it) for.
type typist struct {
	t    testing.TB
	c    *relaytest.Conn
	user string

	mu      sync.Mutex
	holding bool
	gen     uint64
	acked   uint64
	next    uint64
	pending []attachwire.Input
	refused []string // keys acknowledged with a pen_revoked naming this leg
	changed chan struct{}
	done    chan struct{}
}

func newTypist(t testing.TB, c *relaytest.Conn, user string) *typist {
	ty := &typist{t: t, c: c, user: user, changed: make(chan struct{}, 1), done: make(chan struct{})}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(func() {
		cancel()
		<-ty.done
	})
	go ty.read(ctx)
	return ty
}

func (ty *typist) read(ctx context.Context) {
	defer close(ty.done)
	for {
		f, err := ty.c.Next(ctx)
		if err != nil {
			return
		}
		if f.Type != attachwire.TypeControl {
			continue
		}
		ctl, err := attachwire.DecodeControl(f.Payload)
		if err != nil {
			continue
		}
		ty.mu.Lock()
		switch c := ctl.(type) {
		case attachwire.PenGranted:
			ty.pen(c.UserID == ty.user, c.PenGeneration)
		case attachwire.PenState:
			ty.pen(c.HolderUserID == ty.user, c.PenGeneration)
		case attachwire.PenRevoked:
			if c.UserID == ty.user {
				// The key in flight this answers, if any, was refused.
				if len(ty.pending) > 0 {
					ty.refused = append(ty.refused, string(ty.pending[0].Data))
				}
			}
			ty.pen(ty.holding && c.UserID != ty.user, c.PenGeneration)
		case attachwire.InputAck:
			ty.ack(c.AckInputSeq)
		}
		ty.mu.Unlock()
		select {
		case ty.changed <- struct{}{}:
		default:
		}
	}
}

func (ty *typist) pen(holding bool, gen uint64) {
	if gen < ty.gen {
		return
	}
	ty.gen, ty.holding = gen, holding
}

func (ty *typist) ack(a uint64) {
	if a >= ty.acked {
		ty.acked = a
		for len(ty.pending) > 0 && ty.pending[0].InputSeq <= a {
			ty.pending = ty.pending[1:]
		}
		return
	}
	ty.acked = a
	for i := range ty.pending {
		ty.pending[i].InputSeq = a + 1 + uint64(i)
		ty.pending[i].PenGeneration = ty.gen
		ty.send(ty.pending[i])
	}
	ty.next = a + uint64(len(ty.pending))
}

// typeKey sends key if the driver believes it holds the pen, and reports
// whether it did.
func (ty *typist) typeKey(key string) bool {
	ty.mu.Lock()
	defer ty.mu.Unlock()
	if !ty.holding {
		return false
	}
	ty.next++
	in := attachwire.Input{InputSeq: ty.next, PenGeneration: ty.gen, Data: []byte(key)}
	ty.pending = append(ty.pending, in)
	ty.send(in)
	return true
}

func (ty *typist) send(in attachwire.Input) {
	ctx, cancel := context.WithTimeout(context.Background(), relaytest.Timeout)
	defer cancel()
	if err := ty.c.Send(ctx, in.Frame(0, 0)); err != nil {
		ty.t.Errorf("driver: send input: %v", err)
	}
}

// until waits for cond (called with ty.mu held) to hold.
func (ty *typist) until(what string, cond func() bool) {
	ty.t.Helper()
	deadline := time.NewTimer(relaytest.Timeout)
	defer deadline.Stop()
	for {
		ty.mu.Lock()
		ok := cond()
		ty.mu.Unlock()
		if ok {
			return
		}
		select {
		case <-ty.changed:
		case <-ty.done:
			ty.t.Fatalf("driver: leg ended waiting for %s", what)
		case <-deadline.C:
			ty.mu.Lock()
			defer ty.mu.Unlock()
			ty.t.Fatalf("driver: waiting for %s: holding %v gen %d acked %d next %d pending %d",
				what, ty.holding, ty.gen, ty.acked, ty.next, len(ty.pending))
		}
	}
}

// hostKeys reads the host's Input as it comes, in order.
func hostKeys(t testing.TB, h *host) <-chan string {
	keys := make(chan string, 1024)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	t.Cleanup(func() {
		cancel()
		<-done
	})
	go func() {
		defer close(done)
		for {
			f, err := h.c.Next(ctx)
			if err != nil {
				return
			}
			if f.Type != attachwire.TypeInput {
				continue
			}
			if in, err := attachwire.DecodeInput(f.Payload); err == nil {
				keys <- string(in.Data)
			}
		}
	}()
	return keys
}

// expectKeys waits for the host to receive want, in order; any other key
// (a repeat) fails.
func expectKeys(t testing.TB, keys <-chan string, want []string) {
	t.Helper()
	deadline := time.NewTimer(relaytest.Timeout)
	defer deadline.Stop()
	for i, w := range want {
		select {
		case k := <-keys:
			if k != w {
				t.Fatalf("host got key %q as its %dth, want %q (all: %q)", k, i+1, w, want)
			}
		case <-deadline.C:
			t.Fatalf("host got %d of the %d keys the relay accepted; missing from %q", i, len(want), want[i:])
		}
	}
}

// typistOnB starts nodes a and b and a driver on b, in a room nobody
// owns yet, holding b's free pen; it returns a, where the tests bind the
// host.
func typistOnB(t *testing.T) (*node, *typist) {
	t.Helper()
	nodes := startCluster(t, natsServer(t), "a", "b")
	a, b := nodes[0], nodes[1]
	d := relaytest.MustDial(t, b.RoomURL(room), a.DriverToken(t, room, "dan"),
		attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleDriver})
	ty := newTypist(t, d, "dan")
	ty.until("the pen", func() bool { return ty.holding })
	return a, ty
}

// TestClusterDriverTypesBeforeTheHostBinds: a driver on B joins a room
// nobody owns yet and takes its free pen there; the host then binds on
// A. Every key B acknowledged before that reaches the host on A, in order
// with what the driver types after, and the driver ends holding the pen
// as the owner has it.
func TestClusterDriverTypesBeforeTheHostBinds(t *testing.T) {
	a, ty := typistOnB(t)
	var sent []string
	for i := range 3 {
		k := fmt.Sprintf("early%d", i)
		if !ty.typeKey(k) {
			t.Fatal("driver lost the pen before the host bound")
		}
		sent = append(sent, k)
	}
	ty.until("the early keys' acks", func() bool { return len(ty.pending) == 0 })
	genB := ty.gen

	h := hostOn(t, a.Server, a.Server, 1)
	keys := hostKeys(t, h)
	ty.until("the owner's pen", func() bool { return ty.gen > genB })
	for i := range 3 {
		k := fmt.Sprintf("late%d", i)
		ty.until("the pen", func() bool { return ty.holding })
		ty.typeKey(k)
		sent = append(sent, k)
	}
	ty.until("every ack", func() bool { return len(ty.pending) == 0 })
	ty.mu.Lock()
	refused := ty.refused
	ty.mu.Unlock()
	if len(refused) > 0 {
		t.Fatalf("keys refused though the driver held the pen throughout: %q", refused)
	}
	expectKeys(t, keys, sent)
	ty.mu.Lock()
	defer ty.mu.Unlock()
	if !ty.holding {
		t.Fatalf("driver's pen: not holding at generation %d, want the pen it holds on the owner", ty.gen)
	}
}

// TestClusterDriverTypesWhileTheHostBinds: a driver on B takes the pen of
// a room nobody owns yet and types without pause while the host binds on
// A, so its keys meet B's room as it turns to follow A: queued there,
// stamped with B's pen while B hands the room over, and stamped with A's.
// Every key reaches the host, in order, none is refused (the driver holds
// the pen throughout), and the driver ends holding the pen.
func TestClusterDriverTypesWhileTheHostBinds(t *testing.T) {
	a, ty := typistOnB(t)
	genB := ty.gen

	stop, typed := make(chan struct{}), make(chan []string)
	go func() {
		var sent []string
		defer func() { typed <- sent }()
		for i := 0; ; i++ {
			k := fmt.Sprintf("k%d", i)
			if ty.typeKey(k) {
				sent = append(sent, k)
			}
			select {
			case <-stop:
				return
			case <-time.After(time.Millisecond):
			}
		}
	}()
	h := hostOn(t, a.Server, a.Server, 1)
	keys := hostKeys(t, h)
	ty.until("the owner's pen", func() bool { return ty.gen > genB })
	// Some keys after the driver heard the owner's grant.
	ty.mu.Lock()
	after := ty.next + 20
	ty.mu.Unlock()
	ty.until("keys typed under the owner's pen", func() bool { return ty.next >= after || !ty.holding })
	close(stop)
	sent := <-typed
	ty.until("every ack", func() bool { return len(ty.pending) == 0 })
	ty.mu.Lock()
	refused, holding, gen := ty.refused, ty.holding, ty.gen
	ty.mu.Unlock()
	if len(refused) > 0 {
		t.Fatalf("%d keys refused though the driver held the pen throughout: %q", len(refused), refused)
	}
	expectKeys(t, keys, sent)
	if !holding {
		t.Fatalf("driver's pen: not holding at generation %d, want the pen it holds on the owner", gen)
	}
}

// TestClusterDriverJoinsAsTheHostBinds: a driver dials B at the moment
// the host binds on A, in rooms one after another, so that its join meets
// the bind at every stage (before the claim, during B's lookup of the
// owner, after it). Whatever it met, the driver ends holding the owner's
// pen, and the keys it types, from its first, reach the host in order.
func TestClusterDriverJoinsAsTheHostBinds(t *testing.T) {
	ns := natsServer(t)
	nodes := startCluster(t, ns, "a", "b")
	a, b := nodes[0], nodes[1]
	for i := range 8 {
		id := fmt.Sprintf("race-%d", i)
		tok := a.DriverToken(t, id, "dan")
		dialed := make(chan *relaytest.Conn, 1)
		go func() {
			d, err := dialDriver(b.RoomURL(id), tok, id)
			if err != nil {
				t.Errorf("room %s: driver: %v", id, err)
			}
			dialed <- d
		}()
		h := hostOnRoom(t, a.Server, a.Server, id, 1)
		d := <-dialed
		if d == nil {
			t.FailNow()
		}
		t.Cleanup(func() { d.WS.CloseNow() })
		keys := hostKeys(t, h)
		ty := newTypist(t, d, "dan")
		ty.until("the pen", func() bool { return ty.holding })
		var sent []string
		for k := range 3 {
			key := fmt.Sprintf("%s-k%d", id, k)
			ty.until("the pen", func() bool { return ty.holding })
			ty.typeKey(key)
			sent = append(sent, key)
		}
		ty.until("every ack", func() bool { return len(ty.pending) == 0 })
		expectKeys(t, keys, sent)
		ty.mu.Lock()
		refused := ty.refused
		ty.mu.Unlock()
		if len(refused) > 0 {
			t.Fatalf("room %s: keys refused though the driver held the pen throughout: %q", id, refused)
		}
	}
}

// dialDriver dials a driver leg and subscribes it, off the test's
// goroutine.
func dialDriver(url, tok, id string) (*relaytest.Conn, error) {
	ctx, cancel := context.WithTimeout(context.Background(), relaytest.Timeout)
	defer cancel()
	d, _, err := relaytest.Dial(ctx, url, tok, nil)
	if err != nil {
		return nil, err
	}
	if err := d.SendControl(ctx, attachwire.Subscribe{SessionID: id, AsRole: attachwire.RoleDriver}); err != nil {
		d.WS.CloseNow()
		return nil, err
	}
	return d, nil
}

// TestClusterPenChangeRightAfterAJoin: the host takes the pen back the
// moment the owner grants it to a driver joining on B, so the revoke,
// which travels on B's legs subject, races the grant in the join's
// answer. Whatever order B's two subscriptions deliver them in, the
// driver ends with the owner's view: the pen not its own, at the
// revoke's generation.
func TestClusterPenChangeRightAfterAJoin(t *testing.T) {
	ns := natsServer(t)
	nodes := startCluster(t, ns, "a", "b")
	a, b := nodes[0], nodes[1]
	for i := range 5 {
		id := fmt.Sprintf("take-%d", i)
		h := hostOnRoom(t, a.Server, a.Server, id, 1)
		d := relaytest.MustDial(t, b.RoomURL(id), a.DriverToken(t, id, "dan"),
			attachwire.Subscribe{SessionID: id, AsRole: attachwire.RoleDriver})
		ty := newTypist(t, d, "dan")
		g := relaytest.ExpectControl[attachwire.PenGranted](t, h.c)
		if err := h.c.SendControl(ctxT(t), attachwire.PenTake{}); err != nil {
			t.Fatal(err)
		}
		r := relaytest.ExpectControl[attachwire.PenRevoked](t, h.c)
		if g.UserID != "dan" || r.UserID != "dan" || r.PenGeneration <= g.PenGeneration {
			t.Fatalf("room %s: host saw %+v then %+v", id, g, r)
		}
		ty.until("the revoke's generation", func() bool { return ty.gen >= r.PenGeneration })
		ty.mu.Lock()
		holding, gen := ty.holding, ty.gen
		ty.mu.Unlock()
		if holding || gen != r.PenGeneration {
			t.Fatalf("room %s: driver holding %v at %d, want the pen not its own at %d", id, holding, gen, r.PenGeneration)
		}
	}
}

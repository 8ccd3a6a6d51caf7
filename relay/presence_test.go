package relay_test

import (
	"context"
	"fmt"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/token"
)

// nextControl returns the next control c receives, skipping other frames.
func nextControl(t testing.TB, c *relaytest.Conn) attachwire.Control {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), relaytest.Timeout)
	defer cancel()
	for {
		f, err := c.Next(ctx)
		if err != nil {
			t.Fatalf("waiting for a control: %v", err)
		}
		if f.Type != attachwire.TypeControl {
			continue
		}
		ctl, err := attachwire.DecodeControl(f.Payload)
		if err != nil {
			t.Fatalf("control: %v", err)
		}
		return ctl
	}
}

// presenceView is what a peer shows of a room's people, built from the
// presence controls it reads, as a viewer builds it: the members in
// order, or in the counts form the total and the shown members.
type presenceView struct {
	mu       sync.Mutex
	members  []attachwire.Member
	total    int
	counts   bool
	complete bool
	frames   int   // presence controls read
	err      error // what ended the leg's reading
}

func (pv *presenceView) apply(c attachwire.Control) {
	pv.mu.Lock()
	defer pv.mu.Unlock()
	switch c := c.(type) {
	case attachwire.Presence:
		pv.frames++
		if c.Op == attachwire.PresenceList {
			pv.members, pv.counts = nil, false
		}
		for _, m := range c.Members {
			pv.members = slices.DeleteFunc(pv.members, func(o attachwire.Member) bool { return o.ConnID == m.ConnID })
			if c.Op != attachwire.PresenceLeave {
				pv.members = append(pv.members, m)
			}
		}
		pv.total = len(pv.members)
	case attachwire.PresenceCount:
		pv.frames++
		pv.counts, pv.total = true, int(c.Total)
		if len(c.Members) > 0 {
			pv.members, pv.complete = slices.Clone(c.Members), c.Complete
		}
	}
}

// conns returns the connection ids shown, sorted.
func (pv *presenceView) conns() []string {
	pv.mu.Lock()
	defer pv.mu.Unlock()
	ids := make([]string, len(pv.members))
	for i, m := range pv.members {
		ids[i] = m.ConnID
	}
	slices.Sort(ids)
	return ids
}

func (pv *presenceView) String() string {
	pv.mu.Lock()
	defer pv.mu.Unlock()
	return fmt.Sprintf("counts %v total %d, %d shown, %d frames, ended by %v", pv.counts, pv.total, len(pv.members), pv.frames, pv.err)
}

// watched is a peer whose presence view a goroutine keeps up to date.
type watched struct {
	c    *relaytest.Conn
	jti  string
	view *presenceView
	done chan struct{}
}

// watch reads c until it closes, applying presence to a view.
func watch(t testing.TB, c *relaytest.Conn, jti string) *watched {
	w := &watched{c: c, jti: jti, view: &presenceView{}, done: make(chan struct{})}
	go func() {
		defer close(w.done)
		for {
			f, err := c.Next(context.Background())
			if err != nil {
				w.view.mu.Lock()
				w.view.err = err
				w.view.mu.Unlock()
				return
			}
			if f.Type != attachwire.TypeControl {
				continue
			}
			if ctl, err := attachwire.DecodeControl(f.Payload); err == nil {
				w.view.apply(ctl)
			}
		}
	}()
	t.Cleanup(func() {
		c.Close()
		<-w.done
	})
	return w
}

// dialWatched dials a viewer whose token's jti is jti and watches it.
func dialWatched(t testing.TB, s *relaytest.Server, jti string, mode attachwire.PresenceMode) *watched {
	t.Helper()
	tok := s.Token(t, token.Claims{RoomID: room, Role: attachwire.RoleViewer, UserID: "u-" + jti, JTI: jti})
	c := relaytest.MustDial(t, s.RoomURL(room), tok, attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer, Presence: mode})
	return watch(t, c, jti)
}

// presenceConfig is a relay config for a room of many viewers dialled at
// once from one address.
func presenceConfig(every time.Duration, listMax int) relay.Config {
	cfg := quiet()
	cfg.DialsPerSecond = 1e6
	cfg.PresenceEvery = every
	cfg.PresenceListMax = listMax
	return cfg
}

// Many viewers join at once and some leave: joins and leaves reach each
// viewer coalesced (far fewer presence controls than one per viewer per
// join), and every viewer's member view, and the host's, ends exact.
func TestPresenceCoalescesJoinsAndEveryViewEndsExact(t *testing.T) {
	s := relaytest.NewServer(t, presenceConfig(time.Second, 1000))
	h := dialHost(t, s, 1)
	host := watch(t, h.c, "")
	const n, leaving = 40, 10
	vs := make([]*watched, n)
	var wg sync.WaitGroup
	for i := range vs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			mode := attachwire.PresenceMode("")
			if i%2 == 0 {
				mode = attachwire.PresenceCounts // below the threshold: lists too
			}
			vs[i] = dialWatched(t, s, fmt.Sprintf("j%02d", i), mode)
		}()
	}
	wg.Wait()
	for _, v := range vs[:leaving] {
		v.c.Close()
	}
	want := make([]string, 0, n-leaving)
	for _, v := range vs[leaving:] {
		want = append(want, v.jti)
	}
	slices.Sort(want)
	for _, w := range append(vs[leaving:], host) {
		testkit.EventuallyDescribe(t, "the member view of "+w.jti+" is the room's", func() bool {
			return slices.Equal(w.view.conns(), want)
		}, func() string { return fmt.Sprintf("%v: %v", w.view, w.view.conns()) })
	}
	frames := 0
	for _, v := range vs[leaving:] {
		frames += v.view.framesRead()
	}
	// One presence control per viewer per join would be more than
	// n*n/2 (each join to everyone there, each joiner a list).
	if frames > n*n/4 {
		t.Errorf("%d presence controls to %d viewers, want them coalesced (at most %d)", frames, n-leaving, n*n/4)
	}
}

// framesRead returns the presence controls read.
func (pv *presenceView) framesRead() int {
	pv.mu.Lock()
	defer pv.mu.Unlock()
	return pv.frames
}

// Past the threshold, a viewer that reads counts gets the total and a
// bounded list (the earliest to join), the whole list when it asks, and
// lists again once the room is small; a viewer that does not gets every
// member as before; the host always does.
func TestPresenceCountsPastTheThreshold(t *testing.T) {
	s := relaytest.NewServer(t, presenceConfig(50*time.Millisecond, 4))
	h := dialHost(t, s, 1)
	host := watch(t, h.c, "")
	const n = 14
	vs := make([]*watched, 0, n)
	for i := range n - 1 {
		v := dialWatched(t, s, fmt.Sprintf("j%02d", i), attachwire.PresenceCounts)
		// Admitted (it has heard of the room's people) before the next
		// dials: the order of joins is the order here.
		testkit.Eventually(t, v.jti+" admitted", func() bool { return v.view.framesRead() > 0 })
		vs = append(vs, v)
	}
	old := dialWatched(t, s, "old", "")
	vs = append(vs, old)
	all := make([]string, 0, n)
	for _, v := range vs {
		all = append(all, v.jti)
	}
	slices.Sort(all)
	firstTen := slices.Sorted(slices.Values([]string{"j00", "j01", "j02", "j03", "j04", "j05", "j06", "j07", "j08", "j09"}))
	for _, v := range vs[:n-1] {
		testkit.EventuallyDescribe(t, v.jti+" shows the count and the first ten", func() bool {
			v.view.mu.Lock()
			ok := v.view.counts && v.view.total == n
			v.view.mu.Unlock()
			return ok && slices.Equal(v.view.conns(), firstTen)
		}, func() string { return fmt.Sprintf("%v: %v", v.view, v.view.conns()) })
	}
	for _, w := range []*watched{old, host} {
		testkit.EventuallyDescribe(t, "the whole list reaches "+w.jti, func() bool {
			return slices.Equal(w.view.conns(), all)
		}, func() string { return fmt.Sprintf("%v: %v", w.view, w.view.conns()) })
	}

	asker := vs[5]
	if err := asker.c.SendControl(ctxT(t), attachwire.PresenceRequest{}); err != nil {
		t.Fatal(err)
	}
	testkit.EventuallyDescribe(t, "the asker gets the whole list", func() bool {
		asker.view.mu.Lock()
		ok := asker.view.complete
		asker.view.mu.Unlock()
		return ok && slices.Equal(asker.view.conns(), all)
	}, func() string { return fmt.Sprintf("%v: %v", asker.view, asker.view.conns()) })

	// Down to two: half the threshold. Lists again, exact.
	for _, v := range vs {
		if v != vs[3] && v != old {
			v.c.Close()
		}
	}
	left := slices.Sorted(slices.Values([]string{"j03", "old"}))
	for _, w := range []*watched{vs[3], old, host} {
		testkit.EventuallyDescribe(t, w.jti+" shows the two left", func() bool {
			w.view.mu.Lock()
			ok := !w.view.counts
			w.view.mu.Unlock()
			return ok && slices.Equal(w.view.conns(), left)
		}, func() string { return fmt.Sprintf("%v: %v", w.view, w.view.conns()) })
	}
}

// In a cluster, the NATS messages a join costs stay bounded whatever the
// room's size: presence crosses to a node once per update for all its
// legs, not once per leg per join.
func TestClusterPresenceMessagesPerJoinBounded(t *testing.T) {
	ns := natsServer(t)
	cfg := presenceConfig(500*time.Millisecond, 1000)
	cfg.SnapshotRetry = 200 * time.Millisecond
	nodes := startClusterWith(t, ns, cfg, "a", "b")
	a, b := nodes[0], nodes[1]
	hostOn(t, a.Server, a.Server, 1)
	first := dialWatched(t, b.Server, "first", "") // the mirror on B is set up
	testkit.Eventually(t, "the first viewer's list", func() bool { return len(first.view.conns()) == 1 })

	before, err := ns.Stats()
	if err != nil {
		t.Fatal(err)
	}
	const n = 60
	vs := make([]*watched, n)
	var wg sync.WaitGroup
	for i := range vs {
		wg.Add(1)
		go func() {
			defer wg.Done()
			vs[i] = dialWatched(t, b.Server, fmt.Sprintf("j%02d", i), "")
		}()
	}
	wg.Wait()
	want := []string{"first"}
	for _, v := range vs {
		want = append(want, v.jti)
	}
	slices.Sort(want)
	for _, v := range append(vs, first) {
		testkit.EventuallyDescribe(t, "the member view of "+v.jti+" is the room's", func() bool {
			return slices.Equal(v.view.conns(), want)
		}, func() string { return fmt.Sprintf("%v", v.view) })
	}
	after, err := ns.Stats()
	if err != nil {
		t.Fatal(err)
	}
	perJoin := float64(after.InMsgs-before.InMsgs) / n
	t.Logf("NATS messages published per join: %.1f (%d joins)", perJoin, n)
	// A join's request and reply, and its share of the updates; one
	// message per leg per join would be n/2 per join on average.
	if perJoin > 10 {
		t.Errorf("%.1f NATS messages per join, want at most 10", perJoin)
	}

	// Leaves cross the same way, and every view ends exact again.
	for _, v := range vs[:10] {
		v.c.Close()
	}
	want = slices.DeleteFunc(want, func(id string) bool { return id < "j10" && id != "first" })
	for _, v := range append(vs[10:], first) {
		testkit.EventuallyDescribe(t, "after the leaves, the member view of "+v.jti, func() bool {
			return slices.Equal(v.view.conns(), want)
		}, func() string { return fmt.Sprintf("%v", v.view) })
	}
}

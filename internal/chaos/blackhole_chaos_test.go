package chaos

import (
	"regexp"
	"strings"
	"testing"
	"time"
)

// blackholeTicks is how long the ticker runs in the black-hole cases:
// past the silence timeout and the redial after it.
const blackholeTicks = 1200 // 60 s

// A viewer's path to the relay black-holed (the connection silently
// drops everything both ways, nothing is closed, new connections pass):
// the viewer's own ping finds the leg dead and redials, the relay closes
// its side as silent, and the viewer resumes through a new connection to
// the Exit on the host's final screen.
func TestBlackholeRelayViewer(t *testing.T) {
	fullOnly(t, "waits out the relay's 25 s silence timeout")
	k := newKeys(t)
	r := newRelay(t, k)
	room := "bh-viewer"
	h := startHost(t, k, func() string { return r.roomURL(room) }, room, ticker(blackholeTicks), hostOptions{})
	vf := newFront(t, r.addr)
	v := watch(t, k, "v", vf.url(room), room, watchOptions{})
	v.awaitSeq(t, 10)
	v.resetGap()
	holed := vf.blackhole()
	r.awaitLog(t, regexp.MustCompile(`relay: leg silent, closed`))
	f := v.finish(t, h, h.waitExit(t))
	if f.drops == 0 {
		t.Errorf("%v: the viewer never saw its leg drop", f)
	}
	// The viewer finds the leg dead within its ping interval, but the
	// relay refuses its token (one live leg a jti) until its own silence
	// rule ends the old leg: up to the silence timeout and one relay ping
	// interval (10 s) after the last thing it heard.
	if bound := silenceBound + 10*time.Second; f.gap > bound {
		t.Errorf("%v: longer than %v", f, bound)
	}
	v.mu.Lock()
	notices := strings.Join(v.notices, "; ")
	v.mu.Unlock()
	report(t, "relay↔viewer black-holed (%d connection), the relay closed its side as silent: %v; notices %q", holed, f, notices)
}

// A relay node's connection to NATS black-holed: the node must find it
// dead and reconnect, and the viewer on it, which the host's node feeds
// through NATS, must carry on to the Exit on the host's final screen.
func TestBlackholeRelayNATS(t *testing.T) {
	fullOnly(t, "waits out the silence of a NATS connection")
	k := newKeys(t)
	ns := newNATSServer(t)
	nf := newFront(t, ns.addr)
	a := newRelay(t, k, "--nats", ns.url(), "--node", "node-a")
	b := newRelay(t, k, "--nats", "nats://"+nf.addr(), "--node", "node-b")
	room := "bh-nats"
	h := startHost(t, k, func() string { return a.roomURL(room) }, room, ticker(blackholeTicks), hostOptions{})
	v := watch(t, k, "on-b", b.roomURL(room), room, watchOptions{})
	v.awaitSeq(t, 10)
	v.resetGap()
	holed := nf.blackhole()
	f := v.finish(t, h, h.waitExit(t))
	v.mu.Lock()
	notices := strings.Join(v.notices, "; ")
	v.mu.Unlock()
	if f.gap > silenceBound {
		t.Errorf("%v: longer than %v (notices: %s)", f, silenceBound, notices)
	}
	report(t, "node-b↔NATS black-holed (%d connection): %v; notices %q", holed, f, notices)
}

// The host's path to the relay black-holed: the relay closes the host leg
// as silent; the host must find the leg dead by its own silence rule and
// redial, so that viewers see the host back within the silence timeout
// and 5 s.
func TestBlackholeHostRelay(t *testing.T) {
	fullOnly(t, "waits out the relay's 25 s silence timeout")
	k := newKeys(t)
	r := newRelay(t, k)
	room := "bh-host"
	hf := newFront(t, r.addr)
	h := startHost(t, k, func() string { return hf.url(room) }, room, ticker(blackholeTicks), hostOptions{})
	v := watch(t, k, "v", r.roomURL(room), room, watchOptions{})
	v.awaitSeq(t, 10)
	v.resetGap()
	holed := hf.blackhole()
	start := time.Now()
	r.awaitLog(t, regexp.MustCompile(`relay: leg silent, closed`))
	f := v.finish(t, h, h.waitExit(t))
	if f.gap > silenceBound {
		t.Errorf("%v: longer than %v", f, silenceBound)
	}
	report(t, "host↔relay black-holed (%d connection) at %v: %v", holed, start.Format(time.TimeOnly), f)
}

// awaitLog waits for re in the relay's log.
func (r *relayNode) awaitLog(t testing.TB, re *regexp.Regexp) {
	t.Helper()
	eventually(t, "the relay to log "+re.String(), func() bool { return re.MatchString(r.out.String()) })
}

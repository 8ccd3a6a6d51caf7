package chaos

import (
	"net"
	"regexp"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/internal/testkit"
)

// natsServer is a nats-server process with JetStream, built from the
// module cache, on a fixed port and store so that a restart is the same
// server.
type natsServer struct {
	*proc
	addr string
}

var natsReady = regexp.MustCompile(`Server is ready`)

func newNATSServer(t testing.TB) *natsServer {
	t.Helper()
	bin := binary(t, "nats-server", "github.com/nats-io/nats-server/v2")
	addr := testkit.FreeAddr(t)
	_, port, _ := net.SplitHostPort(addr)
	n := &natsServer{proc: newProc(t, "nats-server", bin, "-a", "127.0.0.1", "-p", port, "-js", "-sd", t.TempDir()), addr: addr}
	n.start()
	n.await(natsReady)
	return n
}

// restart starts the server again on its port and store.
func (n *natsServer) restart() {
	n.t.Helper()
	deadline := time.Now().Add(patience)
	for {
		n.start()
		for n.running() && !natsReady.MatchString(n.out.String()) {
			time.Sleep(20 * time.Millisecond)
		}
		if n.running() {
			return
		}
		if time.Now().After(deadline) {
			n.t.Fatalf("nats-server did not come back:\n%s", tail(n.out.String(), 4000))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (n *natsServer) url() string { return "nats://" + n.addr }

// The NATS server two relay nodes use is killed (SIGKILL) and started
// again on its port and store after an outage: the host on node a and
// the viewers on a and b carry on to the Exit, on the host's final
// screen.
func TestNATSServerLostAndBack(t *testing.T) {
	outage := 3 * time.Second
	if full() {
		outage = 20 * time.Second
	}
	k := newKeys(t)
	ns := newNATSServer(t)
	a := newRelay(t, k, "--nats", ns.url(), "--node", "node-a")
	b := newRelay(t, k, "--nats", ns.url(), "--node", "node-b")
	room := "nats"
	ticks := int((outage + 10*time.Second) / (50 * time.Millisecond))
	h := startHost(t, k, func() string { return a.roomURL(room) }, room, ticker(ticks), hostOptions{})
	va := watch(t, k, "on-a", a.roomURL(room), room, watchOptions{})
	vb := watch(t, k, "on-b", b.roomURL(room), room, watchOptions{})
	for _, v := range []*watcher{va, vb} {
		v.awaitSeq(t, 10)
		v.resetGap()
	}
	ns.kill9()
	time.Sleep(outage)
	ns.restart()
	ex := h.waitExit(t)
	for _, v := range []*watcher{va, vb} {
		f := v.finish(t, h, ex)
		if f.gap > outage+silenceBound {
			t.Errorf("%v: longer than the outage and %v", f, silenceBound)
		}
		report(t, "nats-server killed for %v and restarted: %v", outage, f)
	}
}

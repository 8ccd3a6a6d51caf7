package chaos

import (
	"fmt"
	"path/filepath"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/internal/testkit"
)

// silenceBound is how long a viewer may see nothing across a fault it has
// another path around: the relay's silence timeout (25 s) and 5 s.
const silenceBound = 30 * time.Second

// cluster is the documented three-node topology: three 'ptyhost relay'
// processes, each with an embedded NATS server, the servers clustered
// through routes and the room ownership replicated on all three.
type cluster struct {
	nodes []*relayNode
}

func newCluster(t *testing.T, k *keys) *cluster {
	t.Helper()
	var routes []string
	clusterAddrs := make([]string, 3)
	for i := range clusterAddrs {
		clusterAddrs[i] = testkit.FreeAddr(t)
		routes = append(routes, "--nats-route", "nats://"+clusterAddrs[i])
	}
	c := &cluster{}
	for i := range 3 {
		name := fmt.Sprintf("node-%c", 'a'+i)
		args := append([]string{"--nats", "embedded", "--node", name,
			"--nats-listen", testkit.FreeAddr(t), "--nats-cluster", clusterAddrs[i],
			"--nats-store", filepath.Join(t.TempDir(), name), "--nats-replicas", "3"}, routes...)
		c.nodes = append(c.nodes, launchRelay(t, name, k, testkit.FreeAddr(t), args...))
	}
	for _, n := range c.nodes {
		n.listening()
	}
	return c
}

// addrs returns the nodes' addresses, starting with node i.
func (c *cluster) addrs(i int) []string {
	var a []string
	for j := range c.nodes {
		a = append(a, c.nodes[(i+j)%len(c.nodes)].addr)
	}
	return a
}

// kill -9 of each node of a three-node cluster in turn, with the host on
// node a and a viewer on each of b and c. Each participant knows one URL,
// a loopback front that fails over to the next node when its own is gone
// (attachclient and viewer take one URL; a deployment puts a load
// balancer there). Every viewer ends on the host's final screen with the
// Exit, having seen nothing for at most the silence timeout and 5 s.
func TestClusterKillEachNode(t *testing.T) {
	fullOnly(t, "three clustered JetStream servers per case")
	for lost := range 3 {
		t.Run(fmt.Sprintf("node-%c", 'a'+lost), func(t *testing.T) {
			k := newKeys(t)
			c := newCluster(t, k)
			room := "cluster"
			hf := newFront(t, c.addrs(0)...)
			h := startHost(t, k, func() string { return hf.url(room) }, room, ticker(400), hostOptions{})
			var vs []*watcher
			for i := 1; i < 3; i++ {
				vf := newFront(t, c.addrs(i)...)
				vs = append(vs, watch(t, k, fmt.Sprintf("on-%c", 'a'+i), vf.url(room), room, watchOptions{}))
			}
			for _, v := range vs {
				v.awaitSeq(t, 20)
				v.resetGap()
			}
			c.nodes[lost].kill9()
			ex := h.waitExit(t)
			for _, v := range vs {
				f := v.finish(t, h, ex)
				if f.gap > silenceBound {
					t.Errorf("%v: longer than %v", f, silenceBound)
				}
				report(t, "kill -9 of node-%c (host on node-a): %v", 'a'+lost, f)
			}
		})
	}
}

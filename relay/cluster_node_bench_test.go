package relay_test

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/token"
)

// nodeProc is one `ptyhost relay --nats …` process of a benchmark.
type nodeProc struct {
	name string
	addr string // host:port it listens on
}

func (p nodeProc) roomURL(id string) string { return "ws://" + p.addr + "/v1/rooms/" + id }

// buildPtyhost builds cmd/ptyhost into dir and returns the binary's path;
// it skips, saying why, when the go command is not on PATH.
func buildPtyhost(b *testing.B, dir string) string {
	b.Helper()
	gobin, err := exec.LookPath("go")
	if err != nil {
		b.Skipf("SKIP: this benchmark builds cmd/ptyhost and needs the go command on PATH: %v", err)
	}
	bin := filepath.Join(dir, "ptyhost")
	out, err := exec.Command(gobin, "build", "-o", bin, "github.com/ptyhost/ptyhost/cmd/ptyhost").CombinedOutput()
	if err != nil {
		b.Fatalf("go build cmd/ptyhost: %v\n%s", err, out)
	}
	return bin
}

var listenLine = regexp.MustCompile(`ptyhost relay listening on ws://(127\.0\.0\.1:\d+)/v1/rooms/`)

// startNodeProc starts bin as relay node name joined through natsURL and
// returns once it prints its address. Cleanup sends it SIGTERM (a drain),
// kills it if it has not ended after relaytest.Timeout, and waits for it.
func startNodeProc(b *testing.B, bin, pubFile, natsURL, name string) nodeProc {
	b.Helper()
	cmd := exec.Command(bin, "relay", "--listen", "127.0.0.1:0", "--public-key", pubFile,
		"--nats", natsURL, "--node", name, "--dials-per-second", "1000000", "--max-viewers", "2000",
		"--ring-bytes", strconv.Itoa(64<<20), "--viewer-queue-bytes", strconv.Itoa(32<<20),
		"--restart-after", "1s")
	var out testkit.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	if err := cmd.Start(); err != nil {
		b.Fatalf("start node %s: %v", name, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	b.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(relaytest.Timeout):
			_ = cmd.Process.Kill()
			<-done
		}
	})
	deadline := time.Now().Add(relaytest.Timeout)
	for {
		if m := listenLine.FindStringSubmatch(out.String()); m != nil {
			return nodeProc{name: name, addr: m[1]}
		}
		select {
		case err := <-done:
			done <- err // for the cleanup
			b.Fatalf("node %s ended before listening (%v): %s", name, err, out.String())
		case <-time.After(10 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			b.Fatalf("node %s printed no address: %s", name, out.String())
		}
	}
}

// nodeHeap reads go_memstats_heap_inuse_bytes from p's /metrics.
func nodeHeap(b *testing.B, p nodeProc) float64 {
	b.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), relaytest.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+p.addr+"/metrics", nil)
	if err != nil {
		b.Fatal(err)
	}
	// No keep-alive: no idle connection goroutine outlives the read.
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	resp, err := client.Do(req)
	if err != nil {
		b.Fatalf("node %s /metrics: %v", p.name, err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "go_memstats_heap_inuse_bytes "); ok {
			f, err := strconv.ParseFloat(v, 64)
			if err != nil {
				b.Fatalf("node %s: heap sample %q: %v", p.name, v, err)
			}
			return f
		}
	}
	b.Fatalf("node %s: no go_memstats_heap_inuse_bytes in /metrics (%v)", p.name, sc.Err())
	return 0
}

// BenchmarkClusterNodeMemory measures relay memory per node: three relay
// nodes run as separate `ptyhost relay --nats …` processes (the built
// binary) joined through an embedded NATS server in the test process,
// where the host and 300 viewers spread over the three nodes also run. It
// streams b.N 4 KiB Output frames from the host on node a, waits until
// every viewer has the last one, and reports each node's
// go_memstats_heap_inuse_bytes from its /metrics, idle (host and viewers
// joined, nothing streamed) and after the fan-out.
func BenchmarkClusterNodeMemory(b *testing.B) {
	const viewers = 300
	dir := b.TempDir()
	bin := buildPtyhost(b, dir)
	pub, priv, err := ed25519.GenerateKey(rand.Reader)
	if err != nil {
		b.Fatal(err)
	}
	pem, err := token.MarshalPublicKeyPEM(pub)
	if err != nil {
		b.Fatal(err)
	}
	pubFile := filepath.Join(dir, "relay.pub")
	if err := os.WriteFile(pubFile, pem, 0o600); err != nil {
		b.Fatal(err)
	}
	mint := func(c token.Claims) string {
		jti, err := token.NewJTI()
		if err != nil {
			b.Fatal(err)
		}
		now := time.Now().Unix()
		c.RoomID, c.SessionID, c.OrgID, c.Audience, c.JTI = room, room, relaytest.DefaultOrg, "relay", jti
		c.IssuedAt, c.ExpiresAt = now, now+600
		raw, err := token.Mint(priv, c)
		if err != nil {
			b.Fatal(err)
		}
		return raw
	}
	ns := natsServer(b)
	var nodes []nodeProc
	for _, name := range []string{"a", "b", "c"} {
		nodes = append(nodes, startNodeProc(b, bin, pubFile, ns.ClientURL(), name))
	}
	epoch := uint64(1)
	hc := relaytest.MustDial(b, nodes[0].roomURL(room), mint(token.Claims{Role: attachwire.RoleHost, Epoch: &epoch}),
		attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleHost, Epoch: u64(1)})
	h := &host{t: b, c: hc, epoch: 1}
	relaytest.ExpectControl[attachwire.SnapshotRequest](b, hc)
	h.snapshot("")
	conns := make([]*relaytest.Conn, viewers)
	for i := range conns {
		conns[i] = relaytest.MustDial(b, nodes[i%len(nodes)].roomURL(room),
			mint(token.Claims{Role: attachwire.RoleViewer, UserID: fmt.Sprint("v", i)}),
			attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer})
		untilFrame(b, conns[i], attachwire.TypeSnapshot)
	}
	idle := make([]float64, len(nodes))
	for i, p := range nodes {
		idle[i] = nodeHeap(b, p)
	}
	chunk := strings.Repeat("x", 4096)
	last := h.seq + uint64(b.N)
	run, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	errs := make(chan error, viewers)
	var wg sync.WaitGroup
	for i, c := range conns {
		wg.Go(func() {
			for {
				f, err := c.Next(run)
				if err != nil {
					errs <- fmt.Errorf("viewer %d: %w", i, err)
					cancel()
					return
				}
				if f.Seq >= last {
					return
				}
			}
		})
	}
	b.ResetTimer()
	for range b.N {
		h.output(chunk)
	}
	wg.Wait()
	b.StopTimer()
	close(errs)
	if err := <-errs; err != nil {
		b.Fatal(err)
	}
	for i, p := range nodes {
		b.ReportMetric(idle[i]/(1<<20), "idle-heap-MiB(node-"+p.name+")")
		b.ReportMetric(nodeHeap(b, p)/(1<<20), "heap-MiB(node-"+p.name+")")
	}
}

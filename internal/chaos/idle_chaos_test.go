package chaos

import (
	"bufio"
	"context"
	"errors"
	"io"
	"net"
	"net/http"
	"os"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// Ten thousand idle TCP connections from one address, none sending a
// byte, against a relay with its default caps: the relay keeps at most
// its per-address cap of them, resets the rest, and goes on serving
// others: a viewer dialling from 127.0.0.2 follows a session to its
// Exit, and /healthz answers.
func TestIdleConnectionsFromOneAddress(t *testing.T) {
	n := 1000
	if full() {
		n = 10000
	}
	k := newKeys(t)
	r := newRelay(t, k)
	room := "idle"

	var mu sync.Mutex
	var conns []net.Conn
	t.Cleanup(func() {
		for _, c := range conns {
			c.Close()
		}
	})
	var dialFailed atomic.Int64
	var wg sync.WaitGroup
	sem := make(chan struct{}, 64)
	for range n {
		wg.Add(1)
		sem <- struct{}{}
		go func() {
			defer wg.Done()
			defer func() { <-sem }()
			c, err := net.DialTimeout("tcp", r.addr, 5*time.Second)
			if err != nil {
				dialFailed.Add(1)
				return
			}
			mu.Lock()
			conns = append(conns, c)
			mu.Unlock()
		}()
	}
	wg.Wait()

	// A refused connection was reset (or closed) before a byte; a kept
	// one is still open when the read deadline passes.
	var kept, reset atomic.Int64
	deadline := time.Now().Add(3 * time.Second)
	for _, c := range conns {
		wg.Add(1)
		go func() {
			defer wg.Done()
			c.SetReadDeadline(deadline)
			_, err := c.Read(make([]byte, 1))
			if errors.Is(err, os.ErrDeadlineExceeded) {
				kept.Add(1)
			} else {
				reset.Add(1)
			}
		}()
	}
	wg.Wait()
	fds := r.fds()

	h := startHost(t, k, func() string { return r.roomURL(room) }, room, ticker(40), hostOptions{})
	v := watch(t, k, "far", r.roomURL(room), room, watchOptions{localAddr: "127.0.0.2"})
	status := healthz(t, "127.0.0.2", r.addr)
	f := v.finish(t, h, h.waitExit(t))
	if status != http.StatusOK {
		t.Errorf("/healthz from 127.0.0.2: %d", status)
	}
	if kept.Load() > 256 {
		t.Errorf("%d idle connections kept from one address, past the per-address cap of 256", kept.Load())
	}
	refusals := metric(t, r.addr, `ptyhost_relay_refusals_total{reason="connections_per_address"}`)
	report(t, "%d idle connections from 127.0.0.1: %d kept, %d reset by the relay, %d dials failed; relay refusals counted %s; relay open fds %d, RSS %d MiB; /healthz from 127.0.0.2 %d; %v",
		n, kept.Load(), reset.Load(), dialFailed.Load(), refusals, fds, r.rss()>>20, status, f)
}

// healthz GETs /healthz on addr from the local address from.
func healthz(t testing.TB, from, addr string) int {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(from)}, Timeout: 10 * time.Second}
	tr := &http.Transport{DialContext: d.DialContext}
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, "http://"+addr+"/healthz", nil)
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatalf("/healthz from %s: %v", from, err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode
}

// metric returns the value of the sample named exactly name in the
// relay's /metrics (dialled from 127.0.0.3, apart from any load), or "0".
func metric(t testing.TB, addr, name string) string {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP("127.0.0.3")}, Timeout: 10 * time.Second}
	tr := &http.Transport{DialContext: d.DialContext}
	defer tr.CloseIdleConnections()
	resp, err := (&http.Client{Transport: tr, Timeout: 30 * time.Second}).Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatalf("/metrics: %v", err)
	}
	defer resp.Body.Close()
	sc := bufio.NewScanner(resp.Body)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), name+" "); ok {
			return v
		}
	}
	return "0"
}

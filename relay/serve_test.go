package relay_test

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/token"
)

// served is a relay run by ListenAndServe, as the CLI runs it.
type served struct {
	addr string
	key  ed25519.PrivateKey
}

// serve runs ListenAndServe with opts on a loopback port until the test
// ends.
func serve(t *testing.T, opts relay.ServeOptions) served {
	t.Helper()
	pub, priv, err := token.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	cfg := quiet()
	cfg.PublicKeys = []ed25519.PublicKey{pub}
	opts.Addr = "127.0.0.1:0"
	opts.DrainTimeout = time.Second
	ready := make(chan string, 1)
	opts.Ready = func(a net.Addr, _ bool) { ready <- a.String() }
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- relay.ListenAndServe(ctx, cfg, opts) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("ListenAndServe: %v", err)
		}
	})
	select {
	case a := <-ready:
		return served{addr: a, key: priv}
	case err := <-done:
		t.Fatalf("ListenAndServe: %v", err)
	}
	return served{}
}

// get sends one request on its own connection and returns the body.
func (s served) get(path string) (string, error) {
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: relaytest.Timeout}
	resp, err := client.Get("http://" + s.addr + path)
	if err != nil {
		return "", err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return string(b), err
}

// refused reports ptyhost_relay_refusals_total{reason} off /metrics; the
// read itself may be refused while the caps are still full (an error).
func (s served) refusals(reason string) (float64, error) {
	body, err := s.get("/metrics")
	if err != nil {
		return 0, err
	}
	sample := `ptyhost_relay_refusals_total{reason="` + reason + `"} `
	for line := range strings.SplitSeq(body, "\n") {
		if v, ok := strings.CutPrefix(line, sample); ok {
			return strconv.ParseFloat(v, 64)
		}
	}
	return 0, nil
}

// counted waits until /metrics has counted a refusal for reason.
func (s served) counted(t *testing.T, reason string) {
	t.Helper()
	testkit.Eventually(t, "the refusal counted", func() bool {
		n, err := s.refusals(reason)
		return err == nil && n >= 1
	})
}

// closedByPeer reports whether c is closed by the relay before the
// watchdog: a read that ends in EOF or a reset, not a timeout.
func closedByPeer(t *testing.T, c net.Conn) bool {
	t.Helper()
	c.SetReadDeadline(time.Now().Add(relaytest.Timeout))
	_, err := io.Copy(io.Discard, c)
	var ne net.Error
	return !(errors.As(err, &ne) && ne.Timeout())
}

// refused reports whether a dial to addr is turned away: reset before the
// dial returns (the relay can reset a connection that fast), or closed by
// the relay before the watchdog.
func refused(t *testing.T, addr string) bool {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return errors.Is(err, syscall.ECONNRESET)
	}
	defer c.Close()
	return closedByPeer(t, c)
}

func dialRaw(t *testing.T, addr string) net.Conn {
	t.Helper()
	c, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c
}

func TestServeClosesIdleKeepAlive(t *testing.T) {
	s := serve(t, relay.ServeOptions{IdleTimeout: 100 * time.Millisecond})
	c := dialRaw(t, s.addr)
	fmt.Fprintf(c, "GET /healthz HTTP/1.1\r\nHost: relay\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(c), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK || resp.Close {
		t.Fatalf("healthz: %d, close %v; want 200 on a kept-alive connection", resp.StatusCode, resp.Close)
	}
	if !closedByPeer(t, c) {
		t.Fatal("an idle keep-alive connection is still open after the watchdog")
	}
}

func TestServeCutsAStalledRequest(t *testing.T) {
	s := serve(t, relay.ServeOptions{RequestTimeout: 100 * time.Millisecond})
	c := dialRaw(t, s.addr)
	// Half a body, then nothing: the client holds the connection hostage.
	fmt.Fprintf(c, "POST /v1/rooms/r/input HTTP/1.1\r\nHost: relay\r\nContent-Length: 1000\r\n\r\n0123456789")
	if !closedByPeer(t, c) {
		t.Fatal("a request whose body stalled is still open after the watchdog")
	}
}

func TestServeCapsConnectionsPerAddress(t *testing.T) {
	s := serve(t, relay.ServeOptions{MaxConnsPerAddr: 4})
	for range 4 {
		dialRaw(t, s.addr)
	}
	if !refused(t, s.addr) {
		t.Fatal("a fifth connection from one address was kept")
	}
	// Another loopback address is another client: it is served while the
	// first address holds its four.
	d := net.Dialer{LocalAddr: &net.TCPAddr{IP: net.IPv4(127, 0, 0, 2)}}
	other, err := d.Dial("tcp", s.addr)
	if err != nil {
		t.Skipf("cannot dial from 127.0.0.2 here: %v", err)
	}
	defer other.Close()
	fmt.Fprintf(other, "GET /healthz HTTP/1.1\r\nHost: relay\r\nConnection: close\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(other), nil)
	if err != nil {
		t.Fatalf("another address was refused: %v", err)
	}
	resp.Body.Close()
}

func TestServeCapsConnectionsInTotal(t *testing.T) {
	s := serve(t, relay.ServeOptions{MaxConns: 3})
	held := []net.Conn{dialRaw(t, s.addr), dialRaw(t, s.addr), dialRaw(t, s.addr)}
	if !refused(t, s.addr) {
		t.Fatal("a connection past the total cap was kept")
	}
	for _, c := range held {
		c.Close()
	}
	s.counted(t, "connections_total")
}

func TestServeCountsPerAddressRefusals(t *testing.T) {
	s := serve(t, relay.ServeOptions{MaxConnsPerAddr: 2})
	a, b := dialRaw(t, s.addr), dialRaw(t, s.addr)
	if !refused(t, s.addr) {
		t.Fatal("a third connection from one address was kept")
	}
	a.Close()
	b.Close()
	// The slots come back when the relay sees the connections closed.
	s.counted(t, "connections_per_address")
}

// A stream lives past the plain-request and idle timeouts, even on a
// connection that served a plain request first (whose deadlines would
// otherwise carry over).
func TestServeLetsStreamsOutliveTheTimeouts(t *testing.T) {
	s := serve(t, relay.ServeOptions{RequestTimeout: 150 * time.Millisecond, IdleTimeout: 150 * time.Millisecond})
	tr := &http.Transport{MaxIdleConnsPerHost: 1}
	defer tr.CloseIdleConnections()
	client := &http.Client{Transport: tr}
	resp, err := client.Get("http://" + s.addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()

	mint := &relaytest.Server{Key: s.key}
	ctx, cancel := context.WithTimeout(context.Background(), relaytest.Timeout)
	defer cancel()
	ws, _, err := websocket.Dial(ctx, "ws://"+s.addr+"/v1/rooms/"+room, &websocket.DialOptions{
		HTTPClient:   client,
		HTTPHeader:   http.Header{"Authorization": {"Bearer " + mint.HostToken(t, room, 1)}},
		Subprotocols: []string{relay.Subprotocol},
	})
	if err != nil {
		t.Fatal(err)
	}
	defer ws.CloseNow()
	host := &relaytest.Conn{WS: ws}
	if err := host.SendControl(ctx, attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleHost, Epoch: u64(1)}); err != nil {
		t.Fatal(err)
	}
	relaytest.ExpectControl[attachwire.SnapshotRequest](t, host)
	sse, resp, err := relaytest.DialSSE(ctx, relaytest.LaneURL("ws://"+s.addr+"/v1/rooms/"+room, "/sse"), mint.ViewerToken(t, room, "bo"))
	if err != nil {
		t.Fatalf("viewer sse: %v (%v)", err, resp)
	}
	defer sse.Close()
	time.Sleep(600 * time.Millisecond) // four timeouts' worth
	sn, err := attachwire.NewSnapshot(0, screen(1, "alive"))
	if err != nil {
		t.Fatal(err)
	}
	f, err := sn.Frame(1, 1)
	if err != nil {
		t.Fatal(err)
	}
	if err := host.Send(ctx, f); err != nil {
		t.Fatalf("the host leg was cut: %v", err)
	}
	for {
		got, err := sse.NextFrame(ctx)
		if err != nil {
			t.Fatalf("the lane viewer's stream was cut: %v", err)
		}
		if got.Type == attachwire.TypeSnapshot {
			break
		}
	}
	v := relaytest.MustDial(t, "ws://"+s.addr+"/v1/rooms/"+room, mint.ViewerToken(t, room, "ann"),
		attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer})
	for {
		if got := relaytest.NextFrame(t, v); got.Type == attachwire.TypeSnapshot {
			if _, scr := snapshotOf(t, got); text(scr) != "alive" {
				t.Fatalf("the joiner's screen is %q, want the host's", text(scr))
			}
			return
		}
	}
}

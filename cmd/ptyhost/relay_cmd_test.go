package main

import (
	"bytes"
	"context"
	"io"
	"net/http"
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/token"
)

// lockedBuffer is an io.Writer the relay's goroutines and the test share.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *lockedBuffer) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

func (w *lockedBuffer) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

// ptyhost relay listens on the address it prints, answers /healthz and
// /metrics (with the Go runtime's memory), and drains and returns nil
// when its context ends (as on SIGTERM).
func TestRelayCommandServesAndDrains(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := startRelayCmd(t, ctx, 10*time.Second)
	addr := r.addr
	// A token minted by 'ptyhost token' with the key 'ptyhost keygen' wrote
	// is admitted: the viewer is told the room waits for its host.
	tok := r.mint(t, ctx, "--room", "s1", "--role", "viewer", "--user", "ann")
	c, _, err := relaytest.Dial(ctx, "ws://"+addr+"/v1/rooms/s1", tok, nil)
	if err != nil {
		t.Fatalf("dial with a minted token: %v", err)
	}
	if err := c.SendControl(ctx, attachwire.Subscribe{SessionID: "s1", AsRole: attachwire.RoleViewer}); err != nil {
		t.Fatal(err)
	}
	if st := relaytest.ExpectControl[attachwire.RoomState](t, c); st.State != attachwire.RoomHostReconnecting {
		t.Fatalf("room_state %q", st.State)
	}
	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	resp, err := client.Get("http://" + addr + "/healthz")
	if err != nil {
		t.Fatal(err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || strings.TrimSpace(string(body)) != "ok" {
		t.Fatalf("/healthz %d %q", resp.StatusCode, body)
	}
	// The command's /metrics carries the Go runtime's memory, so each
	// node of a cluster reports its own heap.
	resp, err = client.Get("http://" + addr + "/metrics")
	if err != nil {
		t.Fatal(err)
	}
	body, _ = io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{"\ngo_memstats_heap_inuse_bytes ", "\nptyhost_relay_"} {
		if !strings.Contains(string(body), want) {
			t.Errorf("/metrics has no %q", strings.TrimSpace(want))
		}
	}
	cancel()
	// The drain tells the viewer to resume elsewhere and closes it 1012.
	if cl := relaytest.ExpectClose(t, c); cl.Status != websocket.StatusServiceRestart {
		t.Errorf("viewer closed with %v %q, want 1012", cl.Status, cl.Reason)
	}
	r.awaitStop(t, 20*time.Second)
}

func TestRelayCommandUsage(t *testing.T) {
	pub, _, err := token.WriteKeyFiles(filepath.Join(t.TempDir(), "k"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		say  string
	}{
		{nil, "--public-key or --issuer-key is required"},
		{[]string{"--public-key", filepath.Join(t.TempDir(), "nope.pub")}, "--public-key"},
		{[]string{"--public-key", pub, "--tls-cert", "c.pem"}, "--tls-key"},
		{[]string{"--public-key", pub, "--max-rooms", "-1"}, "--max-rooms must not be negative"},
		{[]string{"--public-key", pub, "extra"}, "unexpected argument"},
	} {
		err := relayCmd(context.Background(), tc.args, nil, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.say) {
			t.Errorf("%q: %v, want an error saying %q", tc.args, err, tc.say)
		}
	}
}

// relayRun is a 'ptyhost relay' started by startRelayCmd.
type relayRun struct {
	addr, key string // where it listens; the private key its public key pairs with
	out       *lockedBuffer
	done      <-chan error
}

// startRelayCmd writes a key pair, runs relayCmd on a loopback port with
// the public key and extra flags until ctx ends, and waits (up to wait)
// for its startup line.
func startRelayCmd(t *testing.T, ctx context.Context, wait time.Duration, extra ...string) *relayRun {
	t.Helper()
	r := launchRelayCmd(t, ctx, extra...)
	r.listening(t, wait)
	return r
}

// launchRelayCmd is startRelayCmd without the wait: for relays that start
// only together, as the servers of a NATS cluster do.
func launchRelayCmd(t *testing.T, ctx context.Context, extra ...string) *relayRun {
	t.Helper()
	pub, key, err := token.WriteKeyFiles(filepath.Join(t.TempDir(), "relay"))
	if err != nil {
		t.Fatal(err)
	}
	out := new(lockedBuffer)
	done := make(chan error, 1)
	args := append([]string{"--listen", "127.0.0.1:0", "--public-key", pub, "--restart-after", "1s"}, extra...)
	go func() { done <- relayCmd(ctx, args, nil, out) }()
	return &relayRun{key: key, out: out, done: done}
}

// listening waits (up to wait) for the relay's startup line and notes its
// address.
func (r *relayRun) listening(t *testing.T, wait time.Duration) {
	t.Helper()
	line := regexp.MustCompile(`ptyhost relay listening on ws://(127\.0\.0\.1:\d+)/v1/rooms/`)
	deadline := time.Now().Add(wait)
	for {
		if m := line.FindStringSubmatch(r.out.String()); m != nil {
			r.addr = m[1]
			return
		}
		select {
		case err := <-r.done:
			t.Fatalf("relay stopped before it listened: %v; output %q", err, r.out.String())
		case <-time.After(5 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			t.Fatalf("no startup line; output %q", r.out.String())
		}
	}
}

// mint returns a token 'ptyhost token' mints with the relay's key.
func (r *relayRun) mint(t *testing.T, ctx context.Context, args ...string) string {
	t.Helper()
	var tok bytes.Buffer
	if err := tokenCmd(ctx, append([]string{"--key", r.key}, args...), nil, &tok); err != nil {
		t.Fatal(err)
	}
	return strings.TrimSpace(tok.String())
}

// awaitStop waits for the relay to return after its context ended: nil,
// as after a drain.
func (r *relayRun) awaitStop(t *testing.T, wait time.Duration) {
	t.Helper()
	select {
	case err := <-r.done:
		if err != nil {
			t.Fatalf("relay returned %v after a drain", err)
		}
	case <-time.After(wait):
		t.Fatal("the relay did not stop")
	}
}

// ptyhost relay --help says, in both builds, that --nats embedded needs
// the build tag.
func TestRelayHelpNamesNATSTag(t *testing.T) {
	r := cli(t, "", "", "relay", "--help")
	if r.code != 0 || !strings.Contains(r.stdout, "(embedded needs -tags ptyhost_natsembedded)") {
		t.Fatalf("exit %d, help %q; want 0 and the tag", r.code, r.stdout)
	}
}

// The built relay, listening on every interface, prints URLs one can
// dial (localhost works), and on SIGTERM or SIGINT drains, says so in one
// line and exits 0, as its help says.
func TestRelayBinaryURLsAndSignals(t *testing.T) {
	pub, _, err := token.WriteKeyFiles(filepath.Join(t.TempDir(), "relay"))
	if err != nil {
		t.Fatal(err)
	}
	for _, sig := range []syscall.Signal{syscall.SIGTERM, syscall.SIGINT} {
		out := new(lockedBuffer)
		cmd := exec.Command(ptyhostBin, "relay", "--listen", ":0", "--public-key", pub, "--restart-after", "1s")
		cmd.Stdout, cmd.Stderr = out, out
		if err := cmd.Start(); err != nil {
			t.Fatal(err)
		}
		local := regexp.MustCompile(`(?m)^  ws://localhost:(\d+)/v1/rooms/ \(this machine\)$`)
		deadline := time.Now().Add(30 * time.Second)
		var m []string
		for m = local.FindStringSubmatch(out.String()); m == nil; m = local.FindStringSubmatch(out.String()) {
			if time.Now().After(deadline) {
				cmd.Process.Kill()
				cmd.Wait()
				t.Fatalf("no localhost URL; output %q", out.String())
			}
			time.Sleep(10 * time.Millisecond)
		}
		if strings.Contains(out.String(), "[::]") || strings.Contains(out.String(), "0.0.0.0") {
			t.Errorf("startup names an address nobody can dial: %q", out.String())
		}
		resp, err := (&http.Client{Timeout: 10 * time.Second}).Get("http://localhost:" + m[1] + "/healthz")
		if err != nil {
			t.Errorf("the printed URL does not answer: %v", err)
		} else {
			resp.Body.Close()
		}
		cmd.Process.Signal(sig)
		err = cmd.Wait()
		if err != nil {
			t.Errorf("%v: relay ended with %v, want exit 0; output %q", sig, err, out.String())
		}
		if want := "ptyhost relay: stopped by " + ptyhost.SignalName(sig) + " after draining\n"; !strings.HasSuffix(out.String(), want) {
			t.Errorf("%v: output ends %q, want %q", sig, tail(out.String()), want)
		}
	}
}

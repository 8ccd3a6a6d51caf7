package natsembed_test

import (
	"context"
	"errors"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/nats-io/nats.go"
	"github.com/nats-io/nats.go/jetstream"
	"github.com/ptyhost/ptyhost/relay/natsembed"
)

// start runs a server on a free loopback port and closes it when the
// test ends.
func start(t testing.TB, opts natsembed.Options) *natsembed.Server {
	t.Helper()
	srv, err := natsembed.Start("127.0.0.1:0", opts)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
	})
	return srv
}

// connect is a client of srv, closed when the test ends.
func connect(t testing.TB, srv *natsembed.Server) *nats.Conn {
	t.Helper()
	nc, err := nats.Connect(srv.ClientURL(), nats.MaxReconnects(0))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(nc.Close)
	return nc
}

// TestJetStream: the server has JetStream, stored in the directory given:
// a key-value bucket (what the relay's cluster registry is) keeps a value.
func TestJetStream(t *testing.T) {
	store := t.TempDir()
	srv := start(t, natsembed.Options{StoreDir: store})
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	js, err := jetstream.New(connect(t, srv))
	if err != nil {
		t.Fatal(err)
	}
	kv, err := js.CreateKeyValue(ctx, jetstream.KeyValueConfig{Bucket: "b"})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := kv.Put(ctx, "k", []byte("v")); err != nil {
		t.Fatal(err)
	}
	if e, err := kv.Get(ctx, "k"); err != nil || string(e.Value()) != "v" {
		t.Fatalf("get: %v, %v; want v", e, err)
	}
	if ents, err := os.ReadDir(store); err != nil || len(ents) == 0 {
		t.Fatalf("store %s holds %d entries (%v); want the JetStream files", store, len(ents), err)
	}
}

// TestCloseStore: Close removes the temporary store Start made, and
// leaves one it was given; a second Close is harmless.
func TestCloseStore(t *testing.T) {
	// A TMPDIR of its own, so that no other program's stores are counted.
	t.Setenv("TMPDIR", t.TempDir())
	given := t.TempDir()
	for _, tc := range []struct {
		name  string
		store string
	}{{"temporary", ""}, {"given", given}} {
		t.Run(tc.name, func(t *testing.T) {
			before, err := filepath.Glob(filepath.Join(os.TempDir(), "ptyhost-nats-*"))
			if err != nil {
				t.Fatal(err)
			}
			srv, err := natsembed.Start("127.0.0.1:0", natsembed.Options{StoreDir: tc.store})
			if err != nil {
				t.Fatal(err)
			}
			made := newDirs(t, before)
			if (tc.store == "") != (len(made) == 1) {
				t.Fatalf("temporary stores made: %q", made)
			}
			for range 2 {
				if err := srv.Close(); err != nil {
					t.Fatal(err)
				}
			}
			for _, d := range made {
				if _, err := os.Stat(d); !errors.Is(err, os.ErrNotExist) {
					t.Errorf("temporary store %s after Close: %v", d, err)
				}
			}
			if _, err := os.Stat(given); err != nil {
				t.Errorf("given store after Close: %v", err)
			}
		})
	}
}

// newDirs returns the temporary stores that exist now and not in before.
func newDirs(t *testing.T, before []string) []string {
	t.Helper()
	now, err := filepath.Glob(filepath.Join(os.TempDir(), "ptyhost-nats-*"))
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]bool{}
	for _, d := range before {
		seen[d] = true
	}
	var made []string
	for _, d := range now {
		if !seen[d] {
			made = append(made, d)
		}
	}
	return made
}

// TestMaxPayload: clients learn the cap and a larger message is refused.
func TestMaxPayload(t *testing.T) {
	srv := start(t, natsembed.Options{MaxPayload: 8 << 10})
	nc := connect(t, srv)
	if got := nc.MaxPayload(); got != 8<<10 {
		t.Fatalf("client's max payload %d, want %d", got, 8<<10)
	}
	if err := nc.Publish("x", make([]byte, 8<<10+1)); !errors.Is(err, nats.ErrMaxPayload) {
		t.Fatalf("publish over the cap: %v, want nats.ErrMaxPayload", err)
	}
}

// TestStats: a message published and delivered shows in the counters.
func TestStats(t *testing.T) {
	srv := start(t, natsembed.Options{})
	nc := connect(t, srv)
	s0, err := srv.Stats()
	if err != nil {
		t.Fatal(err)
	}
	sub, err := nc.SubscribeSync("s")
	if err != nil {
		t.Fatal(err)
	}
	if err := nc.Publish("s", []byte("12345")); err != nil {
		t.Fatal(err)
	}
	if _, err := sub.NextMsg(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	// The server counts a client's messages after it has handled the
	// read that held them, which may be after the subscriber has one.
	deadline := time.Now().Add(10 * time.Second)
	for {
		s1, err := srv.Stats()
		if err != nil {
			t.Fatal(err)
		}
		if s1.InMsgs-s0.InMsgs >= 1 && s1.OutMsgs-s0.OutMsgs >= 1 && s1.InBytes-s0.InBytes >= 5 && s1.OutBytes-s0.OutBytes >= 5 {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("stats %+v then %+v; want at least one 5-byte message in and out", s0, s1)
		}
		time.Sleep(time.Millisecond)
	}
}

// TestStartErrors: a malformed address, a taken port and a negative
// payload cap fail at once with errors saying so.
func TestStartErrors(t *testing.T) {
	taken, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer taken.Close()
	for _, tc := range []struct {
		name string
		addr string
		opts natsembed.Options
		is   error
		say  string
	}{
		{"no port", "127.0.0.1", natsembed.Options{}, natsembed.ErrBadAddress, "missing port"},
		{"port not a number", "127.0.0.1:http", natsembed.Options{}, natsembed.ErrBadAddress, `port "http"`},
		{"port too large", "127.0.0.1:65536", natsembed.Options{}, natsembed.ErrBadAddress, "0..65535"},
		{"port taken", taken.Addr().String(), natsembed.Options{}, nil, "natsembed: listen"},
		{"negative max payload", "127.0.0.1:0", natsembed.Options{MaxPayload: -1}, nil, "negative"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			srv, err := natsembed.Start(tc.addr, tc.opts)
			if err == nil {
				srv.Close()
				t.Fatal("started")
			}
			if tc.is != nil && !errors.Is(err, tc.is) {
				t.Errorf("%v is not %v", err, tc.is)
			}
			if !strings.HasPrefix(err.Error(), "natsembed: ") || !strings.Contains(err.Error(), tc.say) {
				t.Errorf("error %q, want the package prefix and %q", err, tc.say)
			}
		})
	}
}

package main

import (
	"context"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/castchain"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/token"
)

// TestRelayRecordsAndVerifies runs 'ptyhost relay --record-dir' with a
// recording key, carries a room to its exit, fetches the key from the
// relay and checks the recording with 'ptyhost verify'.
func TestRelayRecordsAndVerifies(t *testing.T) {
	dir := t.TempDir()
	recKey, _, err := token.WriteKeyFiles(filepath.Join(t.TempDir(), "rec"))
	if err != nil {
		t.Fatal(err)
	}
	recPriv := strings.TrimSuffix(recKey, ".pub") + ".key"
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	r := startRelayCmd(t, ctx, 10*time.Second, "--record-dir", dir, "--record-key", recPriv, "--record-max-bytes", "100000000")
	tok := r.mint(t, ctx, "--room", "s1", "--role", "host", "--epoch", "1")
	h, _, err := relaytest.Dial(ctx, "ws://"+r.addr+"/v1/rooms/s1", tok, nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := h.SendControl(ctx, attachwire.Subscribe{SessionID: "s1", AsRole: attachwire.RoleHost, Epoch: u64p(1), Record: true}); err != nil {
		t.Fatal(err)
	}
	relaytest.ExpectControl[attachwire.SnapshotRequest](t, h)
	h.Send(ctx, attachwire.NewOutputFrame(1, 1, []byte("recorded by the relay\r\n")))
	h.Send(ctx, attachwire.Exit{Code: 0}.Frame(2, 2))
	var path string
	testkit.Eventually(t, "the recording closes", func() bool {
		m, _ := filepath.Glob(filepath.Join(dir, "*.cast"))
		if len(m) != 1 {
			return false
		}
		b, _ := os.ReadFile(m[0])
		path = m[0]
		return strings.Contains(string(b), castchain.Prefix+"end ")
	})

	client := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}, Timeout: 10 * time.Second}
	resp, err := client.Get("http://" + r.addr + "/v1/recording-key")
	if err != nil {
		t.Fatal(err)
	}
	pem, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	served := filepath.Join(t.TempDir(), "served.pub")
	os.WriteFile(served, pem, 0o600)
	code, stdout, stderr := runInProcess(t, "verify", "--key", served, path)
	if code != 0 || !strings.Contains(stdout, "intact") || !strings.Contains(stdout, "the trusted key") {
		t.Fatalf("verify: exit %d\n%s%s", code, stdout, stderr)
	}
	code, stdout, _ = runInProcess(t, "play", "--screen", path)
	if code != 0 || !strings.Contains(stdout, "recorded by the relay") {
		t.Fatalf("play: exit %d %q", code, stdout)
	}
	cancel()
	r.awaitStop(t, 20*time.Second)
}

func u64p(v uint64) *uint64 { return &v }

func TestRelayRecordUsage(t *testing.T) {
	pub, _, err := token.WriteKeyFiles(filepath.Join(t.TempDir(), "k"))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		args []string
		say  string
	}{
		{[]string{"--public-key", pub, "--record-all"}, "need --record-dir"},
		{[]string{"--public-key", pub, "--record-dir", t.TempDir(), "--record-max-bytes", "-1"}, "must not be negative"},
		{[]string{"--public-key", pub, "--record-dir", t.TempDir(), "--record-key", pub}, "--record-key"},
	} {
		err := relayCmd(context.Background(), tc.args, nil, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.say) {
			t.Errorf("%q: %v, want an error saying %q", tc.args, err, tc.say)
		}
	}
}

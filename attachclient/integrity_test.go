package attachclient_test

import (
	"context"
	"encoding/base64"
	"math/rand/v2"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/faultproxy"
	"github.com/ptyhost/ptyhost/internal/testkit"
)

// TestIntegrityThroughTheWholePath sends random base64 through a raw-mode
// cat on the session, carried by RunHost to the relay through the proxy,
// which cuts the host leg once in the middle of a frame. A viewer on the
// relay must end with the child's screen (its last lines rebuilt from the
// snapshots and Output frames it got), and its frames must be contiguous
// between snapshots. 32 MiB; 4 MiB under the race detector.
func TestIntegrityThroughTheWholePath(t *testing.T) {
	size := 32 << 20
	if raceEnabled {
		size = 4 << 20
	}
	if testing.Short() {
		size = 1 << 20
	}
	r := newRig(t, "rawcat", fastRelay())
	r.start(t, r.config())
	v := r.join(t, attachwire.RoleViewer, "watcher", attachwire.Subscribe{})
	v.keepText = 64 << 10 // only the tail matters; keep memory flat
	v.until(t, "raw mode", v.sees("raw"))

	// 76-character base64 lines, as a mail body: each fits the 80-column
	// screen, so the screen's last rows are the stream's last lines.
	rng := rand.New(rand.NewPCG(1, 2))
	raw := make([]byte, size/4*3)
	for i := range raw {
		raw[i] = byte(rng.Uint32())
	}
	enc := base64.StdEncoding.EncodeToString(raw)
	var data strings.Builder
	for len(enc) > 0 {
		n := min(76, len(enc))
		data.WriteString(enc[:n])
		data.WriteString("\r\n")
		enc = enc[n:]
	}
	data.WriteString("END-OF-DATA\r\n")
	payload := []byte(data.String())

	cut := make(chan error, 1)
	go func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*watchdog)
		defer cancel()
		err := r.proxy.Wait(ctx, func(s faultproxy.Stats) bool { return s.BytesUp >= int64(len(payload)/2) })
		if err == nil {
			r.proxy.CutMidFrame(faultproxy.Upstream)
		}
		cut <- err
	}()
	written := make(chan error, 1)
	go func() {
		for p := payload; len(p) > 0; {
			n := min(len(p), 16<<10)
			if _, err := r.sess.WriteInput(p[:n]); err != nil {
				written <- err
				return
			}
			p = p[n:]
		}
		written <- nil
	}()
	start := time.Now()
	v.untilWithin(t, "the end of the data", 10*watchdog, v.sees("END-OF-DATA"))
	if err := <-written; err != nil {
		t.Fatal(err)
	}
	if err := <-cut; err != nil {
		t.Fatalf("the proxy never cut the leg: %v", err)
	}
	t.Logf("%d MiB through the path in %v; proxy %+v", size>>20, time.Since(start), r.proxy.Stats())
	if s := r.proxy.Stats(); s.Cuts != 1 || s.Forwarded < 2 {
		t.Fatalf("want one cut and a reconnect: %+v", s)
	}
	checkContiguous(t, v.frames)

	// The viewer's last lines, the child's screen and the input agree.
	scr, _, err := r.sess.Snapshot()
	if err != nil {
		t.Fatal(err)
	}
	want := screenLines(scr)
	got := lastLines(v.text.String(), len(want))
	input := lastLines(string(payload), len(want))
	if strings.Join(got, "\n") != strings.Join(want, "\n") || strings.Join(input, "\n") != strings.Join(want, "\n") {
		t.Fatalf("viewer's last lines\n%q\nchild's screen\n%q\ninput\n%q", got, want, input)
	}
}

// screenLines returns a screen's rows, right-trimmed, without trailing
// empty ones.
func screenLines(scr attachwire.Screen) []string {
	var lines []string
	for row := range scr.Rows {
		lines = append(lines, testkit.Row(scr.Primary, scr.Cols, row))
	}
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	return lines
}

// lastLines returns the last n non-empty lines of s, split at CR/LF.
func lastLines(s string, n int) []string {
	f := strings.FieldsFunc(s, func(r rune) bool { return r == '\r' || r == '\n' })
	if len(f) > n {
		f = f[len(f)-n:]
	}
	return f
}

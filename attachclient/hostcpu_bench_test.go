package attachclient_test

import (
	"bufio"
	"context"
	"encoding/hex"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/attachclient"
	"github.com/ptyhost/ptyhost/attachwire/seal"
	"github.com/ptyhost/ptyhost/internal/streamgen"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/token"
)

// BenchmarkSealedHostCPU measures the host's CPU per byte of a 16 MiB
// mixed firehose (a child cats streamgen.Mixed at 120×40) carried to a
// relay over loopback, in a sealed room against a plain one, alternating
// per iteration in swapping order so that the machine's load hits both
// alike. It reports each side's CPU per byte, their ratio (the target:
// sealed/plain ≤ 1.10), and the heap allocations each makes per MiB.
//
// Only the host is timed: the relay and its draining viewer (which opens
// every sealed frame) run in a child process (the "relay" helper), so
// this process's own user+system time (getrusage RUSAGE_SELF) is the
// session's, its emulator's and the carrier's, sanitizing and sealing
// included, and nothing else: the relay's sanitizing of a plain room is
// the child's, and cat, a grandchild, counts for neither. Per-thread
// time would not do, as goroutines move between threads. Each run
// starts after a forced collection, so that one side's garbage is not
// collected on the other's time.
//
//	go test -run '^$' -bench SealedHostCPU -benchtime 4x -count 5 ./attachclient
func BenchmarkSealedHostCPU(b *testing.B) {
	if raceEnabled {
		b.Skip("the race detector's cost would swamp the host's")
	}
	const size = 16 << 20
	path := filepath.Join(b.TempDir(), "firehose.txt")
	if err := os.WriteFile(path, streamgen.Mixed(1, size), 0o644); err != nil {
		b.Fatal(err)
	}
	k, err := seal.GenerateKey()
	if err != nil {
		b.Fatal(err)
	}
	rc := startRelayChild(b)
	var cpu [2]time.Duration
	var allocs [2]uint64
	b.Logf("load average before: %s", testkit.LoadAverage())
	for i := 0; b.Loop(); i++ {
		for j := range 2 {
			side := (i + j) % 2 // 0 plain, 1 sealed
			key := []*seal.Key{nil, k}[side]
			var c time.Duration
			var a uint64
			// The label splits a -cpuprofile by side (-tagfocus room=sealed):
			// the session's and the carrier's goroutines inherit it.
			pprof.Do(context.Background(), pprof.Labels("room", []string{"plain", "sealed"}[side]), func(context.Context) {
				c, a = rc.hostRun(b, fmt.Sprintf("r%d-%d", i, side), path, key, size)
			})
			cpu[side] += c
			allocs[side] += a
		}
	}
	b.Logf("load average after: %s", testkit.LoadAverage())
	bytes := float64(size) * float64(b.N)
	b.ReportMetric(float64(cpu[0].Nanoseconds())/bytes, "plain-ns/byte")
	b.ReportMetric(float64(cpu[1].Nanoseconds())/bytes, "sealed-ns/byte")
	b.ReportMetric(float64(cpu[1])/float64(cpu[0]), "sealed/plain")
	b.ReportMetric(float64(allocs[0])/(bytes/(1<<20)), "plain-allocs/MiB")
	b.ReportMetric(float64(allocs[1])/(bytes/(1<<20)), "sealed-allocs/MiB")
}

// relayChild is the "relay" helper process and the key its relay trusts.
type relayChild struct {
	url string
	key []byte // ed25519 private key
	in  io.Writer
	out *bufio.Scanner
}

// startRelayChild starts the relay helper and reads its address; the
// benchmark's cleanup ends it.
func startRelayChild(b *testing.B) *relayChild {
	b.Helper()
	_, priv, err := token.GenerateKey()
	if err != nil {
		b.Fatal(err)
	}
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), attachclient.HelperEnv+"=relay",
		attachclient.RelaySeedEnv+"="+hex.EncodeToString(priv.Seed()))
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		b.Fatal(err)
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		b.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		b.Fatal(err)
	}
	b.Cleanup(func() { in.Close(); cmd.Wait() })
	rc := &relayChild{key: priv, in: in, out: bufio.NewScanner(out)}
	rc.url = strings.TrimPrefix(rc.expect(b, "addr"), "addr ")
	return rc
}

// expect reads the child's next line, which must start with word.
func (rc *relayChild) expect(b *testing.B, word string) string {
	b.Helper()
	if !rc.out.Scan() {
		b.Fatalf("relay child ended waiting for %q: %v", word, rc.out.Err())
	}
	if line := rc.out.Text(); strings.HasPrefix(line, word) {
		return line
	}
	b.Fatalf("relay child said %q, want %s", rc.out.Text(), word)
	return ""
}

// hostRun carries one firehose of size bytes from a cat of path through
// RunHost to the child's viewer in room, sealed under key (nil: plain),
// and returns the CPU time and the heap allocations this process spent
// from the spawn until the viewer saw the Exit frame.
func (rc *relayChild) hostRun(b *testing.B, room, path string, key *seal.Key, size int) (time.Duration, uint64) {
	b.Helper()
	ks := "-"
	if key != nil {
		ks = key.Encode()
	}
	fmt.Fprintf(rc.in, "%s %s\n", room, ks)
	rc.expect(b, "ready")
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	mallocs := ms.Mallocs
	cpu0 := processCPU(b)
	// The child waits for a line before it cats, so that the host's leg
	// is bound first and the relay takes the whole stream as Output (a
	// host that binds late sends a screen instead); the ring holds the
	// whole stream, so that a pump the load delays never falls off it
	// and resends a screen either.
	s, err := ptyhost.Spawn(ptyhost.Spec{Command: []string{"sh", "-c", `read x; exec cat "$0"`, path},
		Cols: 120, Rows: 40, Epoch: 1, RingBytes: 4 * size})
	if err != nil {
		b.Fatal(err)
	}
	defer s.Stop(ctx)
	hctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- attachclient.RunHost(hctx, attachclient.HostConfig{
			AttachURL: rc.url + "/v1/rooms/" + room,
			TokenSource: func(context.Context) (string, error) {
				return mintHostKey(rc.key, room, 1)
			},
			Session: s.Agent(),
			Logger:  testLogger(),
			Key:     key,
		})
	}()
	defer func() { stop(); <-done }()
	rc.expect(b, "live")
	if _, err := s.WriteInput([]byte("\n")); err != nil {
		b.Fatal(err)
	}
	line := rc.expect(b, "done")
	cpu := processCPU(b) - cpu0
	runtime.ReadMemStats(&ms)
	var n, snaps int
	if _, err := fmt.Sscanf(line, "done %d %d", &n, &snaps); err != nil {
		b.Fatalf("relay child said %q: %v", line, err)
	}
	// The viewer counts Output after the PTY's CR LF and the sanitizer:
	// fewer bytes than the file means a screen was sent instead of some,
	// a different workload.
	if n < size {
		b.Logf("room %s: the viewer saw %d Output bytes of %d and %d snapshots", room, n, size, snaps)
	}
	return cpu, ms.Mallocs - mallocs
}

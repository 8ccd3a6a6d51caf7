package attachclient_test

import (
	"context"
	"errors"
	"io"
	"os"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/attachclient"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
	"github.com/ptyhost/ptyhost/relaytest"
)

// firehoseBytes is what the firehose child writes per run.
const firehoseBytes = 16 << 20

func spawnFirehose(b *testing.B, epoch uint64) *ptyhost.Session {
	b.Helper()
	s, err := ptyhost.Spawn(ptyhost.Spec{
		Command: []string{os.Args[0], "-test.run=^$"},
		Env: []string{attachclient.HelperEnv + "=firehose", "FIREHOSE_BYTES=" + strconv.Itoa(firehoseBytes),
			"GORACE=atexit_sleep_ms=0"},
		Epoch: epoch,
	})
	if err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkFirehoseThroughTheRelay measures a 16 MiB firehose from the
// child to one viewer through the whole networked path (session, RunHost,
// loopback WebSocket, relay, viewer leg) and, in the same run, through the
// in-process pipeline alone (session to a local subscription), and reports
// both rates and their ratio (the target: relay/inproc >= 0.7).
func BenchmarkFirehoseThroughTheRelay(b *testing.B) {
	var inproc, relayed time.Duration
	for range b.N {
		inproc += firehoseInProcess(b)
		relayed += firehoseRelayed(b)
	}
	mb := float64(firehoseBytes) * float64(b.N) / 1e6
	b.ReportMetric(mb/inproc.Seconds(), "inproc-MB/s")
	b.ReportMetric(mb/relayed.Seconds(), "relay-MB/s")
	b.ReportMetric(inproc.Seconds()/relayed.Seconds(), "ratio")
}

// firehoseInProcess returns how long the session takes from spawn to the
// Exit frame on a local subscription.
func firehoseInProcess(b *testing.B) time.Duration {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	s := spawnFirehose(b, 1)
	defer s.Stop(ctx)
	sub, err := s.Subscribe(0)
	if err != nil {
		b.Fatal(err)
	}
	defer sub.Close()
	for {
		_, err := sub.Next(ctx)
		if errors.Is(err, io.EOF) {
			return time.Since(start)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkSealedFirehose is the firehose through the relay to a viewer
// that opens every frame, plain and sealed, in one run: the rates, and the
// process's CPU per byte (host, relay and viewer share it) for each, and
// sealed over plain.
func BenchmarkSealedFirehose(b *testing.B) {
	k, err := seal.GenerateKey()
	if err != nil {
		b.Fatal(err)
	}
	var wall, cpu [2]time.Duration
	for range b.N {
		for i, key := range []*seal.Key{nil, k} {
			c0 := processCPU(b)
			wall[i] += firehoseRelayedKey(b, key)
			cpu[i] += processCPU(b) - c0
		}
	}
	mb := float64(firehoseBytes) * float64(b.N) / 1e6
	b.ReportMetric(mb/wall[0].Seconds(), "plain-MB/s")
	b.ReportMetric(mb/wall[1].Seconds(), "sealed-MB/s")
	bytes := float64(firehoseBytes) * float64(b.N)
	b.ReportMetric(float64(cpu[0].Nanoseconds())/bytes, "plain-cpu-ns/byte")
	b.ReportMetric(float64(cpu[1].Nanoseconds())/bytes, "sealed-cpu-ns/byte")
	b.ReportMetric(float64(cpu[1])/float64(cpu[0]), "sealed/plain-cpu")
}

// processCPU is the process's user and system CPU time so far.
func processCPU(b *testing.B) time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		b.Fatal(err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

// firehoseRelayed returns how long from spawn until a viewer on the relay
// sees the Exit frame.
func firehoseRelayed(b *testing.B) time.Duration { return firehoseRelayedKey(b, nil) }

// firehoseRelayedKey is firehoseRelayed in a room sealed under k (nil:
// plain), the viewer opening every frame.
func firehoseRelayedKey(b *testing.B, k *seal.Key) time.Duration {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := relaytest.NewServer(b, fastRelay())
	defer srv.Close()
	const room = "firehose"
	sub := attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer}
	var opener *seal.Room
	if k != nil {
		sub.Sealed, opener = k.ID().String(), seal.NewRoom(k, room)
	}
	v := relaytest.MustDial(b, srv.RoomURL(room), srv.ViewerToken(b, room, "v"), sub)
	defer v.WS.CloseNow()
	relaytest.ExpectControl[attachwire.RoomState](b, v)

	start := time.Now()
	s := spawnFirehose(b, 1)
	defer s.Stop(ctx)
	hctx, stop := context.WithCancel(ctx)
	done := make(chan error, 1)
	go func() {
		done <- attachclient.RunHost(hctx, attachclient.HostConfig{
			AttachURL:   srv.RoomURL(room),
			TokenSource: func(context.Context) (string, error) { return mintHost(srv, room, 1) },
			Session:     s.Agent(),
			Logger:      testLogger(),
			Key:         k,
		})
	}()
	defer func() { stop(); <-done }()
	for {
		f, err := v.Next(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if opener != nil && f.Type != attachwire.TypeControl {
			if _, err := opener.Open(f, 1); err != nil {
				b.Fatalf("%v seq %d: %v", f.Type, f.Seq, err)
			}
		}
		if f.Type == attachwire.TypeExit {
			return time.Since(start)
		}
	}
}

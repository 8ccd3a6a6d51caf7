package attachclient_test

import (
	"context"
	"errors"
	"io"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/attachclient"
	"github.com/ptyhost/ptyhost/attachwire"
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

// firehoseRelayed returns how long from spawn until a viewer on the relay
// sees the Exit frame.
func firehoseRelayed(b *testing.B) time.Duration {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	srv := relaytest.NewServer(b, fastRelay())
	defer srv.Close()
	const room = "firehose"
	v := relaytest.MustDial(b, srv.RoomURL(room), srv.ViewerToken(b, room, "v"),
		attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer})
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
		})
	}()
	defer func() { stop(); <-done }()
	for {
		f, err := v.Next(ctx)
		if err != nil {
			b.Fatal(err)
		}
		if f.Type == attachwire.TypeExit {
			return time.Since(start)
		}
	}
}

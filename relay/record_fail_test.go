package relay_test

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/castchain"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
)

// fullDisk is a recording file on a disk with no room.
type fullDisk struct{}

func (fullDisk) Write([]byte) (int, error) { return 0, syscall.ENOSPC }
func (fullDisk) Close() error              { return nil }

// TestRecordDiskFails: a write error stops the recording (a metric, a log
// line) and the room goes on.
func TestRecordDiskFails(t *testing.T) {
	cfg, _ := recordingConfig(t, true)
	var logs testkit.Buffer
	cfg.Logger = slog.New(slog.NewTextHandler(&logs, nil))
	s := relaytest.NewServer(t, cfg)
	relay.SetRecordOpener(s.Relay, func(string) (io.WriteCloser, error) { return fullDisk{}, nil })
	h := dialHost(t, s, 1)
	h.snapshot("")
	v := dialViewer(t, s, s.ViewerToken(t, room, "v"), attachwire.RoleViewer, attachwire.Subscribe{})
	relaytest.ExpectControl[attachwire.PenState](t, v)
	for i := range 50 {
		h.output(strings.Repeat("y", 1000) + string(rune('a'+i%26)))
	}
	untilSeq(t, v, attachwire.TypeOutput, h.seq)
	testkit.Eventually(t, "the failure is counted", func() bool {
		return metric(t, s, "ptyhost_relay_recordings_failed_total") == 1
	})
	if !strings.Contains(logs.String(), "recording failed") || !strings.Contains(logs.String(), "no space left") {
		t.Errorf("no log line for the failed recording:\n%s", logs.String())
	}
	h.output("still going")
	untilSeq(t, v, attachwire.TypeOutput, h.seq)
}

// TestRecordOpenFails: a file that cannot be created is a failed
// recording, not a failed room.
func TestRecordOpenFails(t *testing.T) {
	cfg, _ := recordingConfig(t, true)
	s := relaytest.NewServer(t, cfg)
	relay.SetRecordOpener(s.Relay, func(string) (io.WriteCloser, error) { return nil, errors.New("read-only file system") })
	h := dialHost(t, s, 1)
	h.output("x")
	testkit.Eventually(t, "the failure is counted", func() bool {
		return metric(t, s, "ptyhost_relay_recordings_failed_total") == 1
	})
}

// TestRecordQuietRoomCheckpoints: a room that goes quiet gets its lines
// signed within CheckpointEvery, before any closing line.
func TestRecordQuietRoomCheckpoints(t *testing.T) {
	cfg, pub := recordingConfig(t, true)
	cfg.Record.CheckpointEvery = 50 * time.Millisecond
	s := relaytest.NewServer(t, cfg)
	h := dialHost(t, s, 1)
	h.output("one line\r\n")
	var b []byte
	testkit.Eventually(t, "a checkpoint covers the output", func() bool {
		fs := castFiles(t, cfg.Record.Dir)
		if len(fs) != 1 {
			return false
		}
		b, _ = os.ReadFile(fs[0])
		return strings.Contains(string(b), castchain.Prefix+"cp ") && strings.Contains(string(b), "one line")
	})
	rep, err := castchain.Verify(strings.NewReader(string(b)), castchain.VerifyOptions{Key: pub})
	if err != nil {
		t.Fatal(err)
	}
	// Still open: cut short, with nothing unproven.
	if rep.Closed || rep.Unproven != 0 || len(rep.Problems) != 1 || rep.Problems[0].Kind != castchain.Truncated {
		t.Fatalf("report %+v", rep)
	}
}

// gatedFile is a recording file on a disk that stalls until the gate
// opens.
type gatedFile struct {
	gate chan struct{}
	mu   sync.Mutex
	buf  bytes.Buffer
	done chan struct{}
}

func (f *gatedFile) Write(p []byte) (int, error) {
	<-f.gate
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.buf.Write(p)
}

func (f *gatedFile) Close() error { close(f.done); return nil }

// TestRecordOverflowIsNoted: a disk that stalls long enough overflows the
// queue; once it recovers, the file ends with the recorder's note that it
// stopped, and its chain still verifies.
func TestRecordOverflowIsNoted(t *testing.T) {
	cfg, pub := recordingConfig(t, true)
	cfg.Record.QueueEvents = 8
	s := relaytest.NewServer(t, cfg)
	f := &gatedFile{gate: make(chan struct{}), done: make(chan struct{})}
	relay.SetRecordOpener(s.Relay, func(string) (io.WriteCloser, error) { return f, nil })
	h := dialHost(t, s, 1)
	for i := range 40 {
		h.output(fmt.Sprintf("line %d\r\n", i))
	}
	testkit.Eventually(t, "the overflow is counted", func() bool {
		return metric(t, s, "ptyhost_relay_recordings_failed_total") == 1
	})
	close(f.gate)
	<-f.done
	f.mu.Lock()
	b := f.buf.Bytes()
	f.mu.Unlock()
	rep, err := castchain.Verify(bytes.NewReader(b), castchain.VerifyOptions{Key: pub})
	if err != nil || !rep.Intact() || !strings.HasPrefix(rep.Failed, "ptyhost-record failed: ") {
		t.Fatalf("report %+v, %v\n%s", rep, err, b)
	}
}

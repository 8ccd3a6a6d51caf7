package relay_test

import (
	"bytes"
	"crypto/ed25519"
	"io"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/cast"
	"github.com/ptyhost/ptyhost/internal/castchain"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
)

// recordingConfig records into a new directory, signed by a fixed key.
func recordingConfig(t testing.TB, all bool) (relay.Config, ed25519.PublicKey) {
	key := testRecordKey()
	cfg := quiet()
	cfg.Record = relay.RecordConfig{Dir: t.TempDir(), All: all, Key: key, FinishWait: 2 * time.Second}
	return cfg, key.Public().(ed25519.PublicKey)
}

// dialRecordedHost binds a host leg whose subscribe asks for recording.
func dialRecordedHost(t testing.TB, s *relaytest.Server, epoch uint64) *host {
	t.Helper()
	c := relaytest.MustDial(t, s.RoomURL(room), s.HostToken(t, room, epoch),
		attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleHost, Epoch: u64(epoch), Record: true})
	relaytest.ExpectControl[attachwire.SnapshotRequest](t, c)
	return &host{t: t, c: c, epoch: epoch}
}

func must(f attachwire.Frame, err error) attachwire.Frame {
	if err != nil {
		panic(err)
	}
	return f
}

// castFiles returns the recordings in dir.
func castFiles(t testing.TB, dir string) []string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, "*.cast"))
	if err != nil {
		t.Fatal(err)
	}
	return m
}

// closedRecording waits for the one recording in dir to have its closing
// line and returns it.
func closedRecording(t testing.TB, dir string) []byte {
	t.Helper()
	var b []byte
	testkit.EventuallyDescribe(t, "the recording closes", func() bool {
		fs := castFiles(t, dir)
		if len(fs) != 1 {
			return false
		}
		b, _ = os.ReadFile(fs[0])
		return bytes.Contains(b, []byte(castchain.Prefix+"end "))
	}, func() string { return string(b) })
	return b
}

// TestRecordRoom records a room whose host asks for it: output, resize,
// marker, joins, leaves, the pen, who typed what, the exit; the file is a
// v3 cast a stock reader reads, and its signed chain verifies.
func TestRecordRoom(t *testing.T) {
	cfg, pub := recordingConfig(t, false)
	s := relaytest.NewServer(t, cfg)
	h := dialRecordedHost(t, s, 1)
	h.seq++
	h.send(must(attachwire.Resize{Cols: 100, Rows: 30}.Frame(h.seq, h.seq)))
	h.output("$ ")
	testkit.Eventually(t, "the output is taken", func() bool { return relay.HeadSeq(s.Relay, relaytest.DefaultOrg, room) == h.seq })
	d, gen := driverWithPen(t, s, "alice")
	input(t, d, 1, gen, "", "ls\r")
	hostInput(t, h)
	v := dialViewer(t, s, s.ViewerToken(t, room, "bob"), attachwire.RoleViewer, attachwire.Subscribe{})
	relaytest.ExpectControl[attachwire.PenState](t, v)
	h.output("file\r\n")
	h.seq++
	h.send(must(attachwire.Marker{Label: "exit 0"}.Frame(h.seq, h.seq)))
	testkit.Eventually(t, "the marker is taken", func() bool { return relay.HeadSeq(s.Relay, relaytest.DefaultOrg, room) == h.seq })
	v.Close()
	waitLegs(t, s, attachwire.RoleViewer, 0)
	if err := d.SendControl(ctxT(t), attachwire.Release{}); err != nil {
		t.Fatal(err)
	}
	relaytest.ExpectControl[attachwire.PenRevoked](t, d)
	h.exit(0)
	b := closedRecording(t, cfg.Record.Dir)
	// A host back for the final screen binds the same epoch: no new file.
	// It dials once the relay has let the first go (while that one is
	// bound, the same epoch is refused as stale, to be retried).
	h.c.Close()
	waitLegs(t, s, attachwire.RoleHost, 0)
	h = dialRecordedHost(t, s, 1)
	h.c.Close()
	waitLegs(t, s, attachwire.RoleHost, 0)
	if fs := castFiles(t, cfg.Record.Dir); len(fs) != 1 {
		t.Fatalf("%d recordings after the host came back for the final screen", len(fs))
	}

	rep, err := castchain.Verify(bytes.NewReader(b), castchain.VerifyOptions{Key: pub})
	if err != nil || !rep.Intact() || !rep.Closed || !rep.Trusted {
		t.Fatalf("verify: %v %+v\n%s", err, rep, b)
	}
	r, err := cast.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if h := r.Header(); h.Version != 3 || h.Width != 100 || h.Height != 30 {
		t.Errorf("header %+v, want v3 100x30 (the first resize)", h)
	}
	var got []string
	for {
		ev, err := r.Next()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatal(err)
		}
		got = append(got, ev.Code+" "+ev.Data)
	}
	want := []string{"o $ ", "m join alice (driver)", "m pen alice", "i ls\r", "m join bob (viewer)",
		"o file\r\n", "m exit 0", "m leave bob", "m pen free", "x 0"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Errorf("events\n%q\nwant\n%q", got, want)
	}
	if !bytes.Contains(b, []byte("# input by alice\n[")) {
		t.Errorf("no author comment right before the input event:\n%s", b)
	}
}

// TestRecordOptIn: a relay records only the rooms whose host asks, unless
// it records all.
func TestRecordOptIn(t *testing.T) {
	cfg, _ := recordingConfig(t, false)
	s := relaytest.NewServer(t, cfg)
	h := dialHost(t, s, 1)
	h.output("not recorded")
	h.exit(0)
	testkit.Eventually(t, "the exit is taken", func() bool { return relay.HeadSeq(s.Relay, relaytest.DefaultOrg, room) == 2 })
	s.Close()
	if fs := castFiles(t, cfg.Record.Dir); len(fs) != 0 {
		t.Fatalf("recorded a room that did not ask: %v", fs)
	}

	cfg, pub := recordingConfig(t, true)
	s = relaytest.NewServer(t, cfg)
	h = dialHost(t, s, 1)
	h.output("recorded")
	h.exit(0)
	b := closedRecording(t, cfg.Record.Dir)
	if rep, _ := castchain.Verify(bytes.NewReader(b), castchain.VerifyOptions{Key: pub}); !rep.Intact() {
		t.Fatal(rep.Problems)
	}
}

// TestRecordNewFilePerEpoch: a new epoch ends the recording of the old
// one and starts a file of its own.
func TestRecordNewFilePerEpoch(t *testing.T) {
	cfg, pub := recordingConfig(t, true)
	s := relaytest.NewServer(t, cfg)
	h := dialHost(t, s, 1)
	h.output("one")
	testkit.Eventually(t, "the output is taken", func() bool { return relay.HeadSeq(s.Relay, relaytest.DefaultOrg, room) == 1 })
	h2 := dialHost(t, s, 2)
	h2.output("two")
	testkit.Eventually(t, "two recordings", func() bool { return len(castFiles(t, cfg.Record.Dir)) == 2 })
	s.Close()
	for _, f := range castFiles(t, cfg.Record.Dir) {
		b, _ := os.ReadFile(f)
		if rep, _ := castchain.Verify(bytes.NewReader(b), castchain.VerifyOptions{Key: pub}); !rep.Intact() || !rep.Closed {
			t.Errorf("%s: %v", f, rep.Problems)
		}
		if !strings.Contains(filepath.Base(f), "_sess-1_e") {
			t.Errorf("name %q does not hold the room", f)
		}
	}
}

// TestRecordStalledDisk writes the recording into a FIFO nobody reads: the
// recording falls behind, stops and is counted failed, and the room's
// viewer still gets every frame.
func TestRecordStalledDisk(t *testing.T) {
	cfg, _ := recordingConfig(t, true)
	cfg.Record.QueueBytes = 256 << 10
	cfg.Record.FinishWait = 200 * time.Millisecond
	s := relaytest.NewServer(t, cfg)
	fifo := filepath.Join(t.TempDir(), "stalled")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Skipf("no FIFO here: %v", err)
	}
	// A reader that never reads: opening for writing succeeds, and writes
	// block once the pipe's buffer is full.
	rd, err := os.OpenFile(fifo, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { rd.Close() })
	relay.SetRecordOpener(s.Relay, func(string) (io.WriteCloser, error) { return os.OpenFile(fifo, os.O_WRONLY, 0) })

	h := dialHost(t, s, 1)
	h.snapshot("")
	v := dialViewer(t, s, s.ViewerToken(t, room, "v"), attachwire.RoleViewer, attachwire.Subscribe{})
	relaytest.ExpectControl[attachwire.PenState](t, v)
	const frames, size = 2000, 1024
	chunk := strings.Repeat("x", size-2) + "\r\n"
	done := make(chan int)
	go func() {
		n := 0
		for n < frames {
			f, err := v.Next(ctxT(t))
			if err != nil {
				break
			}
			if f.Type == attachwire.TypeOutput {
				n++
			}
		}
		done <- n
	}()
	start := time.Now()
	for range frames {
		h.output(chunk)
	}
	if n := <-done; n != frames {
		t.Fatalf("viewer got %d of %d frames", n, frames)
	}
	elapsed := time.Since(start)
	t.Logf("%d frames of %d bytes reached the viewer in %v with the recording's disk stalled", frames, size, elapsed)
	testkit.Eventually(t, "the recording is counted failed", func() bool {
		return metric(t, s, "ptyhost_relay_recordings_failed_total") == 1
	})
	// The writer is still blocked on the FIFO: Close returns once
	// FinishWait has cut the file off under it (goleak checks it ended).
	s.Close()
}

// TestRecordRetention: files past MaxAge go at start; past MaxBytes the
// oldest go first; other files stay.
func TestRecordRetention(t *testing.T) {
	cfg, _ := recordingConfig(t, true)
	dir := cfg.Record.Dir
	now := time.Now()
	write := func(name string, size int, age time.Duration) {
		p := filepath.Join(dir, name)
		os.WriteFile(p, make([]byte, size), 0o600)
		os.Chtimes(p, now.Add(-age), now.Add(-age))
	}
	write("ancient.cast", 10, 48*time.Hour)
	write("old.cast", 1000, 3*time.Hour)
	write("mid.cast", 1000, 2*time.Hour)
	write("new.cast", 1000, time.Hour)
	write("notes.txt", 5000, 72*time.Hour)
	cfg.Record.MaxAge = 24 * time.Hour
	cfg.Record.MaxBytes = 2500
	relaytest.NewServer(t, cfg)
	var left []string
	for _, f := range castFiles(t, dir) {
		left = append(left, filepath.Base(f))
	}
	if strings.Join(left, " ") != "mid.cast new.cast" {
		t.Errorf("left %q, want mid.cast new.cast", left)
	}
	if _, err := os.Stat(filepath.Join(dir, "notes.txt")); err != nil {
		t.Errorf("retention touched another file: %v", err)
	}
}

func TestRecordConfigErrors(t *testing.T) {
	cfg := quiet()
	cfg.PublicKeys = []ed25519.PublicKey{make([]byte, ed25519.PublicKeySize)}
	cfg.Record.Dir = filepath.Join(t.TempDir(), "missing")
	if _, err := relay.New(cfg); err == nil || !strings.Contains(err.Error(), "record dir") {
		t.Errorf("missing dir: %v", err)
	}
	cfg.Record.Dir = t.TempDir()
	cfg.Record.Key = make([]byte, 3)
	if _, err := relay.New(cfg); err == nil || !strings.Contains(err.Error(), "record key") {
		t.Errorf("bad key: %v", err)
	}
}

// testRecordKey is a fixed recording key.
func testRecordKey() ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{9}, ed25519.SeedSize))
}

// TestRecordStartsWithTheScreen: the first snapshot, before any output,
// is painted as the recording's first output at its size, so a recording
// that starts mid-session plays from the screen viewers saw.
func TestRecordStartsWithTheScreen(t *testing.T) {
	cfg, pub := recordingConfig(t, true)
	s := relaytest.NewServer(t, cfg)
	h := dialHost(t, s, 1)
	h.snapshot("hi there")
	h.output("!")
	h.snapshot("later") // not painted: the output is already recorded
	h.exit(0)
	b := closedRecording(t, cfg.Record.Dir)
	if rep, _ := castchain.Verify(bytes.NewReader(b), castchain.VerifyOptions{Key: pub}); !rep.Intact() {
		t.Fatal(rep.Problems)
	}
	r, err := cast.NewReader(bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	if hd := r.Header(); hd.Width != 8 || hd.Height != 1 {
		t.Errorf("header %dx%d, want the snapshot's 8x1", hd.Width, hd.Height)
	}
	first, err := r.Next()
	if err != nil || first.Code != cast.CodeOutput || !strings.Contains(first.Data, "hi there") {
		t.Fatalf("first event %+v, %v; want the painted screen", first, err)
	}
	if bytes.Contains(b, []byte("later")) {
		t.Errorf("a later snapshot was painted:\n%s", b)
	}
}

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
)

const attachRoom = "sess-attach"

// hostBridge streams a ptyhost.Session to a relay as its host leg (what
// the attachclient package does, reduced to what these tests need): every
// frame of the session out, stamped Input in, snapshot requests answered
// (in-stream before Exit, out of namespace after), Resize applied.
type hostBridge struct {
	sess   *ptyhost.Session
	conn   *relaytest.Conn
	sendMu sync.Mutex
	inMu   sync.Mutex
	inputs []byte // every Input forwarded to the session
	cancel context.CancelFunc
	wg     sync.WaitGroup
}

func startHostBridge(t testing.TB, s *relaytest.Server, sess *ptyhost.Session) *hostBridge {
	t.Helper()
	const epoch = 1
	ep := uint64(epoch)
	conn := relaytest.MustDial(t, s.RoomURL(attachRoom), s.HostToken(t, attachRoom, epoch),
		attachwire.Subscribe{SessionID: attachRoom, AsRole: attachwire.RoleHost, Epoch: &ep})
	sub, err := sess.Subscribe(0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	b := &hostBridge{sess: sess, conn: conn, cancel: cancel}
	b.wg.Go(func() {
		defer sub.Close()
		for {
			f, err := sub.Next(ctx)
			if err != nil {
				return
			}
			b.send(ctx, f)
		}
	})
	b.wg.Go(func() { b.read(ctx) })
	t.Cleanup(b.stop)
	return b
}

// input returns every Input forwarded to the session so far.
func (b *hostBridge) input() []byte {
	b.inMu.Lock()
	defer b.inMu.Unlock()
	return append([]byte(nil), b.inputs...)
}

// terminalAnswer matches what a terminal sends back to a query: a cursor
// position report, a device attributes answer, a DCS report.
var terminalAnswer = regexp.MustCompile(`\x1b\[[0-9;?]*[Rcn]|\x1bP|\x1b\][0-9]+;`)

// stop drops the host leg, as a host that lost its network would; it is
// idempotent.
func (b *hostBridge) stop() {
	b.cancel()
	b.conn.WS.CloseNow()
	b.wg.Wait()
}

func (b *hostBridge) send(ctx context.Context, f attachwire.Frame) {
	b.sendMu.Lock()
	defer b.sendMu.Unlock()
	b.conn.Send(ctx, f)
}

func (b *hostBridge) read(ctx context.Context) {
	for {
		f, err := b.conn.Next(ctx)
		if err != nil {
			return
		}
		switch f.Type {
		case attachwire.TypeInput:
			if in, err := attachwire.DecodeInput(f.Payload); err == nil && in.UserID != "" {
				b.inMu.Lock()
				b.inputs = append(b.inputs, in.Data...)
				b.inMu.Unlock()
				b.sess.WriteInput(in.Data)
			}
		case attachwire.TypeResize:
			if rs, err := attachwire.DecodeResize(f.Payload); err == nil {
				b.sess.Resize(int(rs.Cols), int(rs.Rows), 0, 0)
			}
		case attachwire.TypeControl:
			ctl, err := attachwire.DecodeControl(f.Payload)
			if _, ok := ctl.(attachwire.SnapshotRequest); ok && err == nil {
				if sf, err := b.sess.EmitSnapshot(); err == nil && sf.Seq == 0 {
					b.send(ctx, sf) // after Exit: sent directly, not in the stream
				}
			}
		}
	}
}

// attachRelay starts a relay and a session running the tui helper (a
// vim-like program: alternate screen, mouse, bracketed paste, focus) at
// 80x24, streamed to it.
func attachRelay(t *testing.T) (*relaytest.Server, *ptyhost.Session, *hostBridge) {
	t.Helper()
	s := relaytest.NewServer(t, relay.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil)), PenCooldown: time.Millisecond})
	sess, err := ptyhost.Spawn(ptyhost.Spec{Command: []string{self(t)}, Env: []string{helperEnv + "=tui"}, Cols: 80, Rows: 24, Epoch: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		sess.Stop(ctx)
	})
	b := startHostBridge(t, s, sess)
	return s, sess, b
}

// attachLine is the shell line that runs attach on the room with tok.
func attachLine(s *relaytest.Server, tok string, flags ...string) string {
	return "PTYHOST_TOKEN=" + tok + " " + shellQuote(ptyhostBin) + " attach " + strings.Join(append(flags, s.RoomURL(attachRoom)), " ") + "; echo rc=$?"
}

// waitScreen polls a window's pane until it shows want exactly.
func (tm *tmuxServer) waitScreen(target, want string) {
	tm.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	var got string
	for {
		got = normalizeScreen(tm.run("capture-pane", "-p", "-t", target))
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("watchdog: pane %s shows:\n%s\nwant:\n%s", target, got, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func (tm *tmuxServer) waitIn(target, want string) string {
	tm.t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		got := normalizeScreen(tm.run("capture-pane", "-p", "-t", target))
		if strings.Contains(got, want) {
			return got
		}
		if time.Now().After(deadline) {
			tm.t.Fatalf("watchdog: pane %s never showed %q; it shows:\n%s", target, want, got)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// TestAttachUnderTmux drives "ptyhost attach" in tmux panes as a person
// would: a read-only attach mirrors a relay-hosted vim-like program
// exactly as tmux shows the same program run directly; --drive types into
// it; the prefix keys release, refuse and take the pen and detach; detach
// restores the terminal; and what the program prints that would make a
// terminal answer or copy (CSI 6n, DECRQSS, OSC 52) never reaches the
// panes' terminal.
func TestAttachUnderTmux(t *testing.T) {
	tm := newTmux(t)
	s, _, bridge := attachRelay(t)
	tm.run("new-session", "-d", "-s", "main", "-x", "80", "-y", "24", "/bin/sh")
	// OSC 52 from a pane would land in tmux's buffers (the default,
	// "external", ignores it: that would prove nothing).
	tm.run("set-option", "-g", "set-clipboard", "on")
	// The same program, run directly, is the reference screen.
	tm.run("new-window", "-d", "-t", "main:1", "-n", "direct", helperEnv+"=tui "+shellQuote(self(t)))
	tm.run("new-window", "-d", "-t", "main:2", "-n", "drive", "/bin/sh")
	for _, w := range []string{"main:1", "main:2"} {
		tm.run("resize-window", "-t", w, "-x", "80", "-y", "24")
	}
	tm.waitIn("main:1", "TUI-READY")

	tm.run("send-keys", "-t", "main:0", "-l", attachLine(s, s.ViewerToken(t, attachRoom, "watcher")))
	tm.run("send-keys", "-t", "main:0", "Enter")
	tm.run("send-keys", "-t", "main:2", "-l", attachLine(s, s.DriverToken(t, attachRoom, "typist"), "--drive"))
	tm.run("send-keys", "-t", "main:2", "Enter")
	tm.waitIn("main:2", "pen: you")

	// --drive types into the program; the direct copy gets the same line.
	tm.run("send-keys", "-t", "main:2", "-l", "hello")
	tm.run("send-keys", "-t", "main:2", "Enter")
	tm.run("send-keys", "-t", "main:1", "-l", "hello")
	tm.run("send-keys", "-t", "main:1", "Enter")
	want := normalizeScreen(tm.run("capture-pane", "-p", "-t", "main:1"))
	if !strings.Contains(want, "got: hello") {
		tm.waitIn("main:1", "got: hello")
		want = normalizeScreen(tm.run("capture-pane", "-p", "-t", "main:1"))
	}
	// Once the notices have gone, the read-only mirror is tmux's screen of
	// the program, and so is the driving one.
	tm.waitScreen("main:0", want)
	tm.waitScreen("main:2", want)
	if got := strings.TrimSpace(tm.run("display", "-p", "-t", "main:0", "#{alternate_on}")); got != "1" {
		t.Errorf("read-only attach: alternate_on %q, want 1", got)
	}
	if got := strings.TrimSpace(tm.run("display", "-p", "-t", "main:0", "#{mouse_any_flag}")); got != "0" {
		t.Errorf("read-only attach turned mouse tracking on (%q): the Viewer profile must drop it", got)
	}
	if got := strings.TrimSpace(tm.run("display", "-p", "-t", "main:2", "#{mouse_any_flag}")); got != "1" {
		t.Errorf("driving attach: mouse_any_flag %q, want 1 (the program's input modes)", got)
	}

	// Hostile output: the program echoes what the driver types, so typing
	// the sequences makes it print them.
	const hostile = "\x1b]52;c;aGVsbG8=\x07\x1bP$qm\x1b\\\x1b[6n\x1b[c"
	tm.run(append([]string{"send-keys", "-t", "main:2", "-H"}, hexOf(hostile)...)...)
	tm.run("send-keys", "-t", "main:2", "Enter")
	tm.run("send-keys", "-t", "main:2", "-l", "probe")
	tm.run("send-keys", "-t", "main:2", "Enter")
	for _, w := range []string{"main:0", "main:2"} {
		got := tm.waitIn(w, "probe")
		for _, line := range strings.Split(got, "\n") {
			if strings.Contains(line, "probe") && strings.TrimSpace(line) != "got: probe" {
				t.Errorf("pane %s: %q: a terminal answer reached the program", w, line)
			}
		}
	}
	// The driving pane's terminal would send its answers to attach, which
	// forwards its input to the session: nothing of the kind arrived.
	// (The hostile line itself was typed, so it is input too.)
	if m := terminalAnswer.Find(bytes.ReplaceAll(bridge.input(), []byte(hostile), nil)); m != nil {
		t.Errorf("a terminal answer %q reached the session", m)
	}
	if bufs := strings.TrimSpace(tm.run("list-buffers")); bufs != "" {
		t.Errorf("OSC 52 reached tmux's clipboard: %q", bufs)
	}

	// Prefix keys: help, release (then typing is refused), grab, detach.
	tm.run("send-keys", "-t", "main:2", "C-]", "?")
	tm.waitIn("main:2", "Ctrl-] then: g take the pen")
	tm.run("send-keys", "-t", "main:2", "C-]", "r")
	tm.waitIn("main:0", "pen: free")
	tm.run("send-keys", "-t", "main:2", "-l", "x")
	tm.waitIn("main:2", "read-only: Ctrl-] g takes the pen")
	tm.run("send-keys", "-t", "main:2", "C-]", "g")
	// One state, said once: the release just before leaves no "pen: free"
	// beside it.
	if got := tm.waitIn("main:0", "pen: typist"); strings.Count(got, "pen:") != 1 {
		t.Errorf("the watcher's status line speaks of the pen more than once:\n%s", got)
	}
	tm.run("send-keys", "-t", "main:2", "-l", "again")
	tm.run("send-keys", "-t", "main:2", "Enter")
	tm.waitIn("main:0", "got: again")
	tm.run("send-keys", "-t", "main:2", "C-]", "d")
	tm.waitIn("main:2", "rc=0")
	if got := strings.TrimSpace(tm.run("display", "-p", "-t", "main:2", "#{alternate_on} #{mouse_any_flag} #{cursor_flag}")); got != "0 0 1" {
		t.Errorf("after detach: alternate_on, mouse_any_flag, cursor_flag = %q, want \"0 0 1\"", got)
	}
	// The terminal is back in cooked mode: the shell echoes and runs a line.
	tm.typeLineIn("main:2", "echo cooked-$((1+1))")
	tm.waitIn("main:2", "cooked-2")

	// The session's end ends the watcher with its status.
	tm.run("send-keys", "-t", "main:2", "-l", attachLine(s, s.DriverToken(t, attachRoom, "typist2"), "--drive"))
	tm.run("send-keys", "-t", "main:2", "Enter")
	// The detached driver gave the pen back: the next one takes it on
	// joining.
	tm.waitIn("main:2", "pen: you")

	// The driver's window size is the session's (SIGWINCH → viewport).
	tm.run("resize-window", "-t", "main:2", "-x", "90", "-y", "20")
	deadline := time.Now().Add(30 * time.Second)
	for !strings.Contains(normalizeScreen(tm.run("capture-pane", "-p", "-t", "main:2")), "size=90x20") {
		if time.Now().After(deadline) {
			t.Fatalf("watchdog: the program never saw 90x20; pane:\n%s", tm.run("capture-pane", "-p", "-t", "main:2"))
		}
		tm.typeLineIn("main:2", "size")
		time.Sleep(100 * time.Millisecond)
	}

	// Ctrl-C detaches a watching attach, as its help says: status 0, no
	// message, the terminal restored.
	tm.run("new-window", "-d", "-t", "main:3", "/bin/sh")
	tm.typeLineIn("main:3", attachLine(s, s.ViewerToken(t, attachRoom, "quitter")))
	tm.waitIn("main:3", "got: again")
	tm.run("send-keys", "-t", "main:3", "C-c")
	if got := tm.waitIn("main:3", "rc="); !strings.Contains(got, "rc=0") || strings.Contains(got, "interrupted") {
		t.Errorf("Ctrl-C while watching: want a quiet detach with rc=0; pane:\n%s", got)
	}
	if got := strings.TrimSpace(tm.run("display", "-p", "-t", "main:3", "#{alternate_on} #{mouse_any_flag} #{cursor_flag}")); got != "0 0 1" {
		t.Errorf("after Ctrl-C: alternate_on, mouse_any_flag, cursor_flag = %q, want \"0 0 1\"", got)
	}
	// A SIGINT sent to a watching attach from elsewhere is an
	// interruption: 128+SIGINT, as the top-level help says.
	tm.run("send-keys", "-t", "main:3", "clear", "Enter")
	tm.typeLineIn("main:3", attachLine(s, s.ViewerToken(t, attachRoom, "killed")))
	tm.waitIn("main:3", "got: again")
	signalPaneChild(t, tm, "main:3", syscall.SIGINT)
	tm.waitIn("main:3", "rc=130")

	// While driving, Ctrl-C is a key for the session: the program is
	// interrupted (its terminal makes the byte a SIGINT), and every attach
	// ends with its status, 128+SIGINT, and the trailer.
	tm.run("send-keys", "-t", "main:2", "C-c")
	tm.waitIn("main:0", "rc=130")
	tm.waitIn("main:2", "rc=130")
	if !bytes.Contains(bridge.input(), []byte{0x03}) {
		t.Errorf("the driver's Ctrl-C did not reach the session: %q", bridge.input())
	}
	for _, w := range []string{"main:0", "main:2"} {
		if got := strings.TrimSpace(tm.run("display", "-p", "-t", w, "#{alternate_on} #{mouse_any_flag} #{cursor_flag}")); got != "0 0 1" {
			t.Errorf("%s after the session ended: alternate_on, mouse_any_flag, cursor_flag = %q, want \"0 0 1\"", w, got)
		}
	}
}

func (tm *tmuxServer) typeLineIn(target, text string) {
	tm.t.Helper()
	tm.run("send-keys", "-t", target, "-l", text)
	tm.run("send-keys", "-t", target, "Enter")
}

// hexOf spells s as tmux send-keys -H wants it: one hex byte a key.
func hexOf(s string) []string {
	out := make([]string, len(s))
	for i := range len(s) {
		out[i] = fmt.Sprintf("%02x", s[i])
	}
	return out
}

// attach's own failures have documented statuses: 2 for usage, 69 for a
// relay that cannot be reached, 77 for a refused token.
func TestAttachExitCodes(t *testing.T) {
	s := relaytest.NewServer(t, relay.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	tm := newTmux(t)
	tm.run("new-session", "-d", "-s", "main", "-x", "80", "-y", "24", "/bin/sh")
	good := s.ViewerToken(t, attachRoom, "ann")
	parts := strings.Split(good, ".")
	forged := parts[0] + "." + parts[1] + "." + strings.Repeat("A", len(parts[2]))
	for _, tc := range []struct{ line, want string }{
		{shellQuote(ptyhostBin) + " attach " + s.RoomURL(attachRoom) + "; echo rc=$?", "rc=2"},
		{"PTYHOST_TOKEN=" + forged + " " + shellQuote(ptyhostBin) + " attach " + s.RoomURL(attachRoom) + "; echo rc=$?", "rc=77"},
		{"PTYHOST_LINK='ws://127.0.0.1:1/v1/rooms/x#token=" + good + "' " + shellQuote(ptyhostBin) + " attach; echo rc=$?", "rc=69"},
	} {
		tm.run("send-keys", "-t", "main", "clear", "Enter")
		tm.typeLine(tc.line)
		tm.waitFor(tc.want)
	}
}

// A watching attach exits with the session's status when the session
// ends (here the program is stopped, and dies of a signal); one that
// joins after the end shows the final screen and exits with that status
// too (the relay sends it the Exit frame before the final snapshot).
func TestAttachExitsWithTheSessionStatus(t *testing.T) {
	tm := newTmux(t)
	s, sess, _ := attachRelay(t)
	tm.run("new-session", "-d", "-s", "main", "-x", "80", "-y", "24", "/bin/sh")
	tm.typeLine(attachLine(s, s.ViewerToken(t, attachRoom, "ann")))
	tm.waitFor("TUI-READY")
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	sess.Stop(ctx)
	ex, ok := sess.Exit()
	if !ok || ex.Code == 0 {
		t.Fatalf("the stopped session's exit %+v %v", ex, ok)
	}
	tm.waitFor(fmt.Sprintf("rc=%d", ex.Code))

	late := strings.Replace(attachLine(s, s.ViewerToken(t, attachRoom, "late")), "echo rc=", "echo late-rc=", 1)
	tm.typeLine("clear; " + late)
	if got := tm.waitFor(fmt.Sprintf("late-rc=%d", ex.Code)); strings.Contains(got, "did not say") {
		t.Errorf("the late attach did not learn the status:\n%s", got)
	}
}

// When the host's leg drops, the attach says so on its status line and
// keeps the screen; Ctrl-C still detaches it.
func TestAttachShowsHostReconnecting(t *testing.T) {
	tm := newTmux(t)
	s, _, b := attachRelay(t)
	tm.run("new-session", "-d", "-s", "main", "-x", "80", "-y", "24", "/bin/sh")
	tm.typeLine(attachLine(s, s.ViewerToken(t, attachRoom, "ann")))
	tm.waitFor("TUI-READY")
	b.stop()
	got := tm.waitFor("host reconnecting")
	if !strings.Contains(got, "TUI-READY") {
		t.Errorf("the screen was lost with the host:\n%s", got)
	}
	tm.run("send-keys", "-t", "main", "C-c")
	tm.waitFor("rc=0")
}

// signalPaneChild sends sig to the program the shell in a tmux pane runs.
func signalPaneChild(t *testing.T, tm *tmuxServer, target string, sig syscall.Signal) {
	t.Helper()
	shell := strings.TrimSpace(tm.run("display", "-p", "-t", target, "#{pane_pid}"))
	b, err := os.ReadFile("/proc/" + shell + "/task/" + shell + "/children")
	if err != nil {
		t.Skipf("cannot find the pane's program (needs Linux's /proc): %v", err)
	}
	kids := strings.Fields(string(b))
	if len(kids) != 1 {
		t.Fatalf("the pane's shell runs %q, want one program", kids)
	}
	pid, err := strconv.Atoi(kids[0])
	if err != nil {
		t.Fatal(err)
	}
	p, err := os.FindProcess(pid)
	if err == nil {
		err = p.Signal(sig)
	}
	if err != nil {
		t.Fatal(err)
	}
}

// A link holding a token is never a command-line argument: attach refuses
// it there, naming the other ways, and takes it from PTYHOST_LINK, from
// --link-file, or from a prompt that does not echo; the page's address
// and an http:// room URL work as well as the ws:// one.
func TestAttachLinks(t *testing.T) {
	s, _, _ := attachRelay(t)
	page := func(user string) string {
		return s.HTTPURL + "/v1/rooms/" + attachRoom + "/view#token=" + s.ViewerToken(t, attachRoom, user)
	}
	secret := page("argv")
	r := cli(t, "", "", "attach", secret)
	if r.code != exitUsage {
		t.Errorf("attach with a token in its argument: exit %d, want %d; stderr %q", r.code, exitUsage, r.stderr)
	}
	for _, want := range []string{"ps", "without a URL", "--link-file FILE", "PTYHOST_LINK"} {
		if !strings.Contains(r.stderr, want) {
			t.Errorf("the refusal %q does not name %q", r.stderr, want)
		}
	}
	if _, tok, _ := strings.Cut(secret, "#token="); strings.Contains(r.stderr, tok) {
		t.Errorf("the refusal repeats the token: %q", r.stderr)
	}

	tm := newTmux(t)
	tm.run("new-session", "-d", "-s", "main", "-x", "80", "-y", "24", "/bin/sh")
	bin := shellQuote(ptyhostBin)
	file := filepath.Join(t.TempDir(), "link")
	if err := os.WriteFile(file, []byte(page("file")+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	for i, line := range []string{
		"PTYHOST_LINK='" + page("env") + "' " + bin + " attach",
		bin + " attach --link-file " + shellQuote(file),
		"PTYHOST_TOKEN=" + s.ViewerToken(t, attachRoom, "http") + " " + bin + " attach " + s.HTTPURL + "/v1/rooms/" + attachRoom,
		"PTYHOST_TOKEN=" + s.ViewerToken(t, attachRoom, "view") + " " + bin + " attach " + s.HTTPURL + "/v1/rooms/" + attachRoom + "/view",
	} {
		tm.typeLine(fmt.Sprintf("clear; %s; echo rc%d=$?", line, i))
		tm.waitFor("TUI-READY")
		tm.run("send-keys", "-t", "main", "C-c")
		tm.waitFor(fmt.Sprintf("rc%d=0", i))
	}

	// The prompt: a link pasted there is not shown.
	tm.typeLine("clear; " + bin + " attach; echo rc=$?")
	tm.waitFor("Paste the room's link")
	tm.run("send-keys", "-t", "main", "-l", page("prompt"))
	time.Sleep(200 * time.Millisecond) // an echo, if any, is on the screen by now
	if got := tm.capture(); strings.Contains(got, "token=") {
		t.Errorf("the prompt echoes the link:\n%s", got)
	}
	tm.run("send-keys", "-t", "main", "Enter")
	tm.waitFor("TUI-READY")
	tm.run("send-keys", "-t", "main", "C-c")
	if got := tm.waitFor("rc="); !strings.Contains(got, "rc=0") || strings.Contains(got, "token=") {
		t.Errorf("after the prompt: want rc=0 and no link on the screen:\n%s", got)
	}
}

// TestAttachListsCommands: a watcher's Ctrl-] c lists the commands the
// session's shell marked, with their exit status, and hides them again.
func TestAttachListsCommands(t *testing.T) {
	tm := newTmux(t)
	s := relaytest.NewServer(t, relay.Config{Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	// The marks come once the watcher is there: a viewer that joins later
	// starts from a snapshot, which holds no marks.
	script := `m() { printf '\033]%s\007' "$1"; }
stty -echo; echo WAITING; read x
m '133;A'; printf '$ '; m '633;E;make test'; m '133;C'; echo 'FAIL: 2 tests'; m '133;D;2'
m '133;A'; printf '$ '; m '633;E;ls'; m '133;C'; echo 'README'; m '133;D;0'
m '133;A'; printf 'SHELL-READY$ '; exec sleep 600`
	sess, err := ptyhost.Spawn(ptyhost.Spec{Command: []string{"sh", "-c", script}, Cols: 80, Rows: 24, Epoch: 1})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		sess.Stop(ctx)
	})
	startHostBridge(t, s, sess)
	tm.run("new-session", "-d", "-s", "main", "-x", "80", "-y", "24", "/bin/sh")
	tm.run("send-keys", "-t", "main:0", "-l", attachLine(s, s.ViewerToken(t, attachRoom, "watcher")))
	tm.run("send-keys", "-t", "main:0", "Enter")
	tm.waitIn("main:0", "WAITING")
	tm.run("send-keys", "-t", "main:0", "C-]", "c")
	tm.waitIn("main:0", "no commands yet")
	if _, err := sess.WriteInput([]byte("\n")); err != nil {
		t.Fatal(err)
	}
	tm.waitIn("main:0", "SHELL-READY$")
	screen := tm.waitIn("main:0", "recent commands")
	for _, want := range []string{"#1 ✗ 2   make test", "#2 ✓ 0   ls"} {
		if !strings.Contains(screen, want) {
			t.Errorf("panel lacks %q:\n%s", want, screen)
		}
	}
	tm.run("send-keys", "-t", "main:0", "C-]", "c")
	deadline := time.Now().Add(30 * time.Second)
	for strings.Contains(normalizeScreen(tm.run("capture-pane", "-p", "-t", "main:0")), "recent commands") {
		if time.Now().After(deadline) {
			t.Fatal("the panel did not go")
		}
		time.Sleep(50 * time.Millisecond)
	}
	if got := normalizeScreen(tm.run("capture-pane", "-p", "-t", "main:0")); !strings.Contains(got, "FAIL: 2 tests") {
		t.Errorf("the session's screen is not back:\n%s", got)
	}
}

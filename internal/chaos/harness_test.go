package chaos

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"log/slog"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/token"
)

// patience bounds every wait of the suite: generous, because the machines
// that run it are loaded, and a wait that ends early is a pass anyway.
const patience = 90 * time.Second

// full reports whether the full form runs (PTYHOST_CHAOS=full).
func full() bool { return os.Getenv("PTYHOST_CHAOS") == "full" }

// fullOnly skips a case that runs only in the full form.
func fullOnly(t *testing.T, why string) {
	t.Helper()
	if !full() {
		t.Skipf("full form only (PTYHOST_CHAOS=full): %s", why)
	}
}

// binDir holds the binaries built for this run; TestMain removes it.
var binDir string

func TestMain(m *testing.M) {
	if n, err := strconv.Atoi(os.Getenv(tickerEnv)); err == nil {
		tick(n)
		return
	}
	code := m.Run()
	if binDir != "" {
		os.RemoveAll(binDir)
	}
	os.Exit(code)
}

// tickerEnv makes the test binary the ticker program: it prints a
// numbered line every 50 ms, as many times as the variable says, from one
// process (a shell loop's sleep would fork a process a line, which on a
// loaded machine takes longer than the line's interval).
const tickerEnv = "PTYHOST_CHAOS_TICKER"

func tick(n int) {
	for i := 1; i <= n; i++ {
		fmt.Printf("tick %d\n", i)
		time.Sleep(50 * time.Millisecond)
	}
}

// builds holds one build per binary for the whole run.
var builds sync.Map // name → *build

type build struct {
	once sync.Once
	path string
	err  error
}

// binary builds pkg (with the embedded NATS server's tag) into the run's
// directory once, and returns the binary's path. Without the go command
// the test skips, or fails when PTYHOST_REQUIRE_TOOLS=1.
func binary(t testing.TB, name, pkg string) string {
	t.Helper()
	goCmd, err := exec.LookPath("go")
	if err != nil {
		if os.Getenv("PTYHOST_REQUIRE_TOOLS") == "1" {
			t.Fatalf("PTYHOST_REQUIRE_TOOLS=1 and the go command is missing: %v", err)
		}
		t.Skipf("SKIPPED: the chaos suite builds real binaries and the go command is missing: %v", err)
	}
	v, _ := builds.LoadOrStore(name, new(build))
	b := v.(*build)
	b.once.Do(func() {
		if binDir == "" {
			if binDir, b.err = os.MkdirTemp("", "ptyhost-chaos-"); b.err != nil {
				return
			}
		}
		b.path = filepath.Join(binDir, name)
		cmd := exec.Command(goCmd, "build", "-tags", "ptyhost_natsembedded", "-o", b.path, pkg)
		if out, err := cmd.CombinedOutput(); err != nil {
			b.err = fmt.Errorf("go build %s: %v\n%s", pkg, err, out)
		}
	})
	if b.err != nil {
		t.Fatal(b.err)
	}
	return b.path
}

func ptyhostBin(t testing.TB) string {
	return binary(t, "ptyhost", "github.com/ptyhost/ptyhost/cmd/ptyhost")
}

// keys is a signing key pair written by 'ptyhost keygen'.
type keys struct {
	pub  string // the public key's file, for --public-key
	priv ed25519.PrivateKey
}

func newKeys(t testing.TB) *keys {
	t.Helper()
	name := filepath.Join(t.TempDir(), "relay")
	if out, err := exec.Command(ptyhostBin(t), "keygen", "--out", name).CombinedOutput(); err != nil {
		t.Fatalf("ptyhost keygen: %v\n%s", err, out)
	}
	priv, err := token.ReadPrivateKeyFile(name + ".key")
	if err != nil {
		t.Fatal(err)
	}
	return &keys{pub: name + ".pub", priv: priv}
}

// mint returns a token for room in role (user for a driver or viewer,
// epoch for a host), valid for an hour.
func (k *keys) mint(room string, role attachwire.Role, user string, epoch uint64) (string, error) {
	jti, err := token.NewJTI()
	if err != nil {
		return "", err
	}
	now := time.Now().Unix()
	c := token.Claims{SessionID: room, RoomID: room, Role: role, UserID: user, OrgID: "default",
		IssuedAt: now, ExpiresAt: now + 3600, Audience: "relay", JTI: jti}
	if role == attachwire.RoleHost {
		c.Epoch = &epoch
	}
	return token.Mint(k.priv, c)
}

func (k *keys) mustMint(t testing.TB, room string, role attachwire.Role, user string) string {
	t.Helper()
	tok, err := k.mint(room, role, user, 0)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// proc is a child process of the suite, started again with the same
// arguments after it is killed.
type proc struct {
	t    testing.TB
	name string
	bin  string
	args []string
	out  *testkit.Buffer
	cmd  *exec.Cmd
	done chan struct{}
}

func newProc(t testing.TB, name, bin string, args ...string) *proc {
	p := &proc{t: t, name: name, bin: bin, args: args}
	t.Cleanup(func() {
		if p.running() {
			p.signal(syscall.SIGKILL)
			<-p.done
		}
		if t.Failed() {
			t.Logf("%s output:\n%s", p.name, tail(p.out.String(), 4000))
		}
	})
	return p
}

// start runs the process with its arguments, its output collected.
func (p *proc) start() {
	p.t.Helper()
	p.out = new(testkit.Buffer)
	cmd := exec.Command(p.bin, p.args...)
	cmd.Stdout, cmd.Stderr = p.out, p.out
	if err := cmd.Start(); err != nil {
		p.t.Fatalf("start %s: %v", p.name, err)
	}
	p.cmd, p.done = cmd, make(chan struct{})
	done := p.done
	go func() { cmd.Wait(); close(done) }()
}

func (p *proc) running() bool {
	if p.done == nil {
		return false
	}
	select {
	case <-p.done:
		return false
	default:
		return true
	}
}

func (p *proc) pid() int { return p.cmd.Process.Pid }

func (p *proc) signal(sig syscall.Signal) { syscall.Kill(p.cmd.Process.Pid, sig) }

// kill9 crashes the process (SIGKILL) and waits for it to be gone.
func (p *proc) kill9() {
	p.t.Helper()
	p.signal(syscall.SIGKILL)
	p.wait()
}

// wait waits for the process to exit.
func (p *proc) wait() {
	p.t.Helper()
	select {
	case <-p.done:
	case <-time.After(patience):
		p.t.Fatalf("%s did not exit", p.name)
	}
}

// await waits for re in the output and returns its first submatch.
func (p *proc) await(re *regexp.Regexp) string {
	p.t.Helper()
	deadline := time.Now().Add(patience)
	for {
		if m := re.FindStringSubmatch(p.out.String()); m != nil {
			if len(m) > 1 {
				return m[1]
			}
			return m[0]
		}
		if !p.running() || time.Now().After(deadline) {
			p.t.Fatalf("%s: no %q in its output (running %v):\n%s", p.name, re, p.running(), tail(p.out.String(), 4000))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// rss is the process's resident set in bytes, from /proc.
func (p *proc) rss() int64 { return procStatus(p.pid(), "VmRSS:") }

// fds is how many files the process has open, from /proc.
func (p *proc) fds() int {
	ents, err := os.ReadDir(fmt.Sprintf("/proc/%d/fd", p.pid()))
	if err != nil {
		return -1
	}
	return len(ents)
}

// procStatus reads a "kB" field of /proc/PID/status, in bytes.
func procStatus(pid int, field string) int64 {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return -1
	}
	for _, line := range strings.Split(string(b), "\n") {
		if rest, ok := strings.CutPrefix(line, field); ok {
			kb, _ := strconv.ParseInt(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(rest), "kB")), 10, 64)
			return kb << 10
		}
	}
	return -1
}

var listening = regexp.MustCompile(`ptyhost relay listening on ws://(127\.0\.0\.1:\d+)/v1/rooms/`)

// relayNode is one 'ptyhost relay' process on a fixed address.
type relayNode struct {
	*proc
	addr string
}

// newRelay starts 'ptyhost relay' on a free port with k's public key and
// the extra flags, and waits until it listens.
func newRelay(t testing.TB, k *keys, extra ...string) *relayNode {
	t.Helper()
	r := launchRelay(t, "relay", k, testkit.FreeAddr(t), extra...)
	r.listening()
	return r
}

// launchRelay starts 'ptyhost relay' on addr without waiting for it: the
// nodes of a NATS cluster start only together.
func launchRelay(t testing.TB, name string, k *keys, addr string, extra ...string) *relayNode {
	t.Helper()
	args := append([]string{"relay", "--listen", addr, "--public-key", k.pub, "--restart-after", "1s",
		"--dials-per-second", "1000"}, extra...)
	r := &relayNode{proc: newProc(t, name, ptyhostBin(t), args...), addr: addr}
	r.start()
	return r
}

// listening waits for the relay's startup line.
func (r *relayNode) listening() {
	r.t.Helper()
	if got := r.await(listening); got != r.addr {
		r.t.Fatalf("%s listens on %s, want %s", r.name, got, r.addr)
	}
}

// restart starts the relay again on the same address, retrying while the
// port is still held by the one before.
func (r *relayNode) restart() {
	r.t.Helper()
	deadline := time.Now().Add(patience)
	for {
		r.start()
		if r.awaitEither(listening) {
			return
		}
		if time.Now().After(deadline) {
			r.t.Fatalf("%s did not come back on %s:\n%s", r.name, r.addr, tail(r.out.String(), 4000))
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// awaitEither waits for re in the output (true) or the process's exit
// (false).
func (r *relayNode) awaitEither(re *regexp.Regexp) bool {
	deadline := time.Now().Add(patience)
	for time.Now().Before(deadline) {
		if re.MatchString(r.out.String()) {
			return true
		}
		if !r.running() {
			return false
		}
		time.Sleep(20 * time.Millisecond)
	}
	return false
}

// drain stops the relay the planned way (SIGTERM) and waits for it.
func (r *relayNode) drain() {
	r.t.Helper()
	r.signal(syscall.SIGTERM)
	r.wait()
}

func (r *relayNode) roomURL(room string) string { return "ws://" + r.addr + "/v1/rooms/" + room }

// tail is the end of s, at most n bytes.
func tail(s string, n int) string {
	if len(s) > n {
		return "…" + s[len(s)-n:]
	}
	return s
}

// logger is where the in-process host and viewers log: nowhere, unless
// PTYHOST_CHAOS_LOG is set.
func logger() *slog.Logger {
	if os.Getenv("PTYHOST_CHAOS_LOG") == "" {
		return slog.New(slog.DiscardHandler)
	}
	return slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
}

// eventually polls cond until it holds, or fails the test saying what.
func eventually(t testing.TB, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(patience)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %v waiting for %s", patience, what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// front is a loopback TCP listener that forwards each connection to the
// first of its backends that takes a dial, starting from the last one
// that did: one URL for a client that knows only one, failing over to the
// next node when its node is gone. blackhole turns the connections open
// now into black holes, as a NAT that forgot them does: whatever either
// side sends is dropped and nothing is closed, while new connections pass.
type front struct {
	l        net.Listener
	backends []string
	mu       sync.Mutex
	cur      int
	wg       sync.WaitGroup
	pairs    map[*pair]struct{}
	closed   bool
}

// pair is one forwarded connection.
type pair struct {
	c, up net.Conn
	dead  atomic.Bool // black-holed
}

func newFront(t testing.TB, backends ...string) *front {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	f := &front{l: l, backends: backends, pairs: map[*pair]struct{}{}}
	f.wg.Add(1)
	go f.accept()
	t.Cleanup(f.close)
	return f
}

func (f *front) addr() string           { return f.l.Addr().String() }
func (f *front) url(room string) string { return "ws://" + f.addr() + "/v1/rooms/" + room }

func (f *front) accept() {
	defer f.wg.Done()
	for {
		c, err := f.l.Accept()
		if err != nil {
			return
		}
		f.wg.Add(1)
		go func() { defer f.wg.Done(); f.serve(c) }()
	}
}

func (f *front) serve(c net.Conn) {
	f.mu.Lock()
	start := f.cur
	f.mu.Unlock()
	var up net.Conn
	for i := range f.backends {
		n := (start + i) % len(f.backends)
		var err error
		if up, err = net.DialTimeout("tcp", f.backends[n], 2*time.Second); err == nil {
			f.mu.Lock()
			f.cur = n
			f.mu.Unlock()
			break
		}
	}
	p := &pair{c: c, up: up}
	if up == nil || !f.track(p) {
		c.Close()
		if up != nil {
			up.Close()
		}
		return
	}
	done := make(chan struct{}, 2)
	go func() { p.pump(up, c); done <- struct{}{} }()
	p.pump(c, up)
	<-done
	f.mu.Lock()
	delete(f.pairs, p)
	f.mu.Unlock()
}

// pump copies src to dst, dropping what it reads once the pair is a black
// hole, and closes both when src ends, unless the pair is a black hole:
// then dst stays open until the front closes.
func (p *pair) pump(dst, src net.Conn) {
	buf := make([]byte, 32<<10)
	for {
		n, err := src.Read(buf)
		if n > 0 && !p.dead.Load() {
			if _, werr := dst.Write(buf[:n]); werr != nil {
				break
			}
		}
		if err != nil {
			break
		}
	}
	if p.dead.Load() {
		return // a black hole passes on no close either
	}
	dst.Close()
	src.Close()
}

// track notes a forwarded pair, for close; false once closed.
func (f *front) track(p *pair) bool {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.closed {
		return false
	}
	f.pairs[p] = struct{}{}
	return true
}

// blackhole makes every connection open now a black hole and returns
// how many there were.
func (f *front) blackhole() int {
	f.mu.Lock()
	defer f.mu.Unlock()
	for p := range f.pairs {
		p.dead.Store(true)
	}
	return len(f.pairs)
}

func (f *front) close() {
	f.mu.Lock()
	f.closed = true
	for p := range f.pairs {
		p.c.Close()
		p.up.Close()
	}
	f.mu.Unlock()
	f.l.Close()
	f.wg.Wait()
}

// loadavg is the machine's 1-minute load average, for the figures.
func loadavg() string {
	b, err := os.ReadFile("/proc/loadavg")
	if err != nil {
		return "?"
	}
	return strings.Fields(string(b))[0]
}

// waitCtx is a context bounded by patience.
func waitCtx(t testing.TB) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), patience)
	t.Cleanup(cancel)
	return ctx
}

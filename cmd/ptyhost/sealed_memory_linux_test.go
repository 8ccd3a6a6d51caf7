package main

import (
	"bytes"
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/token"
)

// TestSealedRelayMemoryHoldsNoPlaintext runs the built relay as its own
// process, writes unique markers through a sealed room (Output, a Marker
// label, a snapshot's screen, a driver's Input), and then reads every
// readable mapping of the relay's memory through /proc/PID/mem: none of
// the markers is there, while the room's id, which the relay does read,
// is (the scan sees what the relay holds).
func TestSealedRelayMemoryHoldsNoPlaintext(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	keys := newMemKeys(t)
	r := startRelayProcess(t, ctx, keys.pub)
	tag := memTag()
	room := "memroom-" + tag
	markers := sealedMarkers(t, ctx, keys, room, tag, r.base, r.base)

	mem := readMemory(t, r.pid())
	if !bytes.Contains(mem, []byte(room)) {
		t.Fatalf("the relay's memory (%d bytes read) does not hold the room id: the scan reads nothing", len(mem))
	}
	for what, m := range markers {
		if bytes.Contains(mem, []byte(m)) {
			t.Errorf("the relay's memory holds the %s marker %q", what, m)
		}
	}
	t.Logf("read %d bytes of the relay's memory", len(mem))

	// The control: the same relay, a plain room; what passes through it
	// is found by the same scan.
	plainMark := plainTraffic(t, ctx, keys, "plainroom-"+tag, tag, r.base, r.base)
	waitInMemory(t, r, plainMark)
}

// memKeys is the relays' signing key pair: the public key's file for
// --public-key, and the private key tokens are minted with.
type memKeys struct {
	pub  string
	priv ed25519.PrivateKey
}

func newMemKeys(t *testing.T) *memKeys {
	t.Helper()
	pub, keyPath, err := token.WriteKeyFiles(filepath.Join(t.TempDir(), "relay"))
	if err != nil {
		t.Fatal(err)
	}
	key, err := token.ReadPrivateKeyFile(keyPath)
	if err != nil {
		t.Fatal(err)
	}
	return &memKeys{pub: pub, priv: key}
}

// mint returns a token for room in role (a host's at epoch 3).
func (k *memKeys) mint(t *testing.T, room string, role attachwire.Role, user string) string {
	t.Helper()
	jti, _ := token.NewJTI()
	now := time.Now().Unix()
	c := token.Claims{RoomID: room, SessionID: room, OrgID: "default", Audience: "relay", Role: role, UserID: user,
		JTI: jti, IssuedAt: now, ExpiresAt: now + 300}
	if role == attachwire.RoleHost {
		ep := uint64(3)
		c.Epoch, c.UserID = &ep, ""
	}
	tok, err := token.Mint(k.priv, c)
	if err != nil {
		t.Fatal(err)
	}
	return tok
}

// memTag is a random tag that makes a run's markers unique.
func memTag() string {
	nonce := make([]byte, 6)
	rand.Read(nonce)
	return hex.EncodeToString(nonce)
}

// relayProcess is a built relay running as its own process.
type relayProcess struct {
	cmd  *exec.Cmd
	out  *lockedBuffer
	base string // "ws://ADDR/v1/rooms/"
}

func (r *relayProcess) pid() int { return r.cmd.Process.Pid }

// startRelayProcess runs the built relay with the public key and extra
// flags on a loopback port until the test ends, and waits for the line
// that says where it listens.
func startRelayProcess(t *testing.T, ctx context.Context, pub string, extra ...string) *relayProcess {
	t.Helper()
	out := new(lockedBuffer)
	cmd := exec.CommandContext(ctx, ptyhostBin, append([]string{"relay", "--listen", "127.0.0.1:0", "--public-key", pub}, extra...)...)
	cmd.Stdout, cmd.Stderr = out, out
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { cmd.Process.Kill(); cmd.Wait() })
	r := &relayProcess{cmd: cmd, out: out}
	r.base = "ws://" + r.await(t, ctx, `ws://(127\.0\.0\.1:\d+)/v1/rooms/`) + "/v1/rooms/"
	return r
}

// await waits for a line of the relay's output matching pattern and
// returns its first group.
func (r *relayProcess) await(t *testing.T, ctx context.Context, pattern string) string {
	t.Helper()
	re := regexp.MustCompile(pattern)
	for {
		if m := re.FindStringSubmatch(r.out.String()); m != nil {
			return m[1]
		}
		select {
		case <-ctx.Done():
			t.Fatalf("the relay did not print %q; it printed %q", pattern, r.out.String())
		case <-time.After(10 * time.Millisecond):
		}
	}
}

// sealedMarkers writes unique markers through a sealed room: the host
// dials hostBase, the driver driverBase. It returns once the driver has
// read the whole stream, so the relay on its side has served every frame.
func sealedMarkers(t *testing.T, ctx context.Context, keys *memKeys, room, tag, hostBase, driverBase string) map[string]string {
	t.Helper()
	k, _ := seal.GenerateKey()
	sr := seal.NewRoom(k, room)
	markers := map[string]string{
		"output":   "OUTMARK" + tag,
		"label":    "LBLMARK" + tag,
		"snapshot": "SNP" + tag[:5], // the screen below is 8 columns
		"input":    "INMARK" + tag,
	}
	h := relaytest.MustDial(t, hostBase+room, keys.mint(t, room, attachwire.RoleHost, ""),
		attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleHost, Epoch: new(uint64(3)), Sealed: k.ID().String()})
	relaytest.ExpectControl[attachwire.SnapshotRequest](t, h)
	send := func(c *relaytest.Conn, f attachwire.Frame, epoch uint64) {
		t.Helper()
		sf, err := sr.Seal(f, epoch)
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Send(ctx, sf); err != nil {
			t.Fatal(err)
		}
	}
	cells := make([]attachwire.Cell, 8)
	for i := range cells {
		cells[i] = attachwire.Cell{Content: markers["snapshot"][i : i+1]}
	}
	snap, _ := attachwire.NewSnapshot(0, &attachwire.Screen{Epoch: 3, Cols: 8, Rows: 1, Primary: cells})
	sf, _ := snap.Frame(1, 1)
	send(h, sf, 3)
	for i := range 50 { // enough for the markers to have been copied about
		send(h, attachwire.NewOutputFrame(uint64(2+i), 2, []byte(fmt.Sprintf("%s %d\r\n", markers["output"], i))), 3)
	}
	mk, _ := attachwire.Marker{Label: "$ " + markers["label"]}.Frame(52, 3)
	send(h, mk, 3)

	d := relaytest.MustDial(t, driverBase+room, keys.mint(t, room, attachwire.RoleDriver, "dan"),
		attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleDriver, Sealed: k.ID().String()})
	pen := relaytest.ExpectControl[attachwire.PenGranted](t, d)
	send(d, attachwire.Input{InputSeq: 1, PenGeneration: pen.PenGeneration, Data: []byte(markers["input"] + "\r")}.Frame(0, 0), 3)
	for f := relaytest.NextFrame(t, h); f.Type != attachwire.TypeInput; f = relaytest.NextFrame(t, h) {
	}
	// The driver reads the whole stream: the relay has served every frame.
	for f := relaytest.NextFrame(t, d); f.Type != attachwire.TypeMarker; f = relaytest.NextFrame(t, d) {
	}
	return markers
}

// plainTraffic writes a marker through a plain room, the host on
// hostBase, a viewer on viewerBase that reads it, and returns the marker.
func plainTraffic(t *testing.T, ctx context.Context, keys *memKeys, room, tag, hostBase, viewerBase string) string {
	t.Helper()
	h := relaytest.MustDial(t, hostBase+room, keys.mint(t, room, attachwire.RoleHost, ""),
		attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleHost, Epoch: new(uint64(3))})
	relaytest.ExpectControl[attachwire.SnapshotRequest](t, h)
	v := relaytest.MustDial(t, viewerBase+room, keys.mint(t, room, attachwire.RoleViewer, "vic"),
		attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer})
	relaytest.ExpectControl[attachwire.RoomState](t, v)
	blank := make([]attachwire.Cell, 8)
	for i := range blank {
		blank[i] = attachwire.BlankCell()
	}
	snap, _ := attachwire.NewSnapshot(0, &attachwire.Screen{Epoch: 3, Cols: 8, Rows: 1, Primary: blank})
	sf, _ := snap.Frame(1, 1)
	mark := "PLAINMARK" + tag
	for _, f := range []attachwire.Frame{sf, attachwire.NewOutputFrame(2, 2, []byte(mark+"\r\n"))} {
		if err := h.Send(ctx, f); err != nil {
			t.Fatal(err)
		}
	}
	for f := relaytest.NextFrame(t, v); f.Type != attachwire.TypeOutput; f = relaytest.NextFrame(t, v) {
	}
	return mark
}

// waitInMemory waits until the relay's memory holds mark.
func waitInMemory(t *testing.T, r *relayProcess, mark string) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !bytes.Contains(readMemory(t, r.pid()), []byte(mark)) {
		if time.Now().After(deadline) {
			t.Fatalf("a plain room's output is not found in the memory of the relay at %s either: the scan proves nothing", r.base)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

// readMemory returns every readable private or anonymous mapping of
// process pid, read through /proc/PID/mem (the test's own child, which it
// may read).
func readMemory(t *testing.T, pid int) []byte {
	t.Helper()
	maps, err := os.ReadFile(fmt.Sprintf("/proc/%d/maps", pid))
	if err != nil {
		t.Skipf("cannot read /proc/%d/maps: %v", pid, err)
	}
	f, err := os.Open(fmt.Sprintf("/proc/%d/mem", pid))
	if err != nil {
		t.Skipf("cannot open /proc/%d/mem: %v", pid, err)
	}
	defer f.Close()
	var mem []byte
	for line := range strings.SplitSeq(strings.TrimSpace(string(maps)), "\n") {
		fields := strings.Fields(line)
		if len(fields) < 2 || fields[1][0] != 'r' {
			continue
		}
		lo, hi, ok := strings.Cut(fields[0], "-")
		if !ok {
			continue
		}
		start, err1 := strconv.ParseUint(lo, 16, 64)
		end, err2 := strconv.ParseUint(hi, 16, 64)
		if err1 != nil || err2 != nil || end <= start || end-start > 1<<30 {
			continue
		}
		buf := make([]byte, end-start)
		n, _ := f.ReadAt(buf, int64(start))
		mem = append(mem, buf[:n]...)
	}
	return mem
}

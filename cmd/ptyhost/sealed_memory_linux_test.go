package main

import (
	"bufio"
	"bytes"
	"context"
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
	pub, keyPath, err := token.WriteKeyFiles(filepath.Join(t.TempDir(), "relay"))
	if err != nil {
		t.Fatal(err)
	}
	key, err := token.ReadPrivateKeyFile(keyPath)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, ptyhostBin, "relay", "--listen", "127.0.0.1:0", "--public-key", pub)
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = cmd.Stdout
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { cmd.Process.Kill(); cmd.Wait() }()
	addr := make(chan string, 1)
	go func() {
		line := regexp.MustCompile(`ws://(127\.0\.0\.1:\d+)/v1/rooms/`)
		sc := bufio.NewScanner(out)
		for sc.Scan() {
			if m := line.FindStringSubmatch(sc.Text()); m != nil {
				addr <- m[1]
			}
		}
	}()
	var base string
	select {
	case a := <-addr:
		base = "ws://" + a + "/v1/rooms/"
	case <-ctx.Done():
		t.Fatal("the relay did not say where it listens")
	}

	nonce := make([]byte, 6)
	rand.Read(nonce)
	tag := hex.EncodeToString(nonce)
	room := "memroom-" + tag
	mint := func(role attachwire.Role, user string) string {
		jti, _ := token.NewJTI()
		now := time.Now().Unix()
		c := token.Claims{RoomID: room, SessionID: room, OrgID: "default", Audience: "relay", Role: role, UserID: user,
			JTI: jti, IssuedAt: now, ExpiresAt: now + 300}
		if role == attachwire.RoleHost {
			ep := uint64(3)
			c.Epoch, c.UserID = &ep, ""
		}
		tok, err := token.Mint(key, c)
		if err != nil {
			t.Fatal(err)
		}
		return tok
	}
	k, _ := seal.GenerateKey()
	sr := seal.NewRoom(k, room)
	markers := map[string]string{
		"output":   "OUTMARK" + tag,
		"label":    "LBLMARK" + tag,
		"snapshot": "SNP" + tag[:5], // the screen below is 8 columns
		"input":    "INMARK" + tag,
	}
	h := relaytest.MustDial(t, base+room, mint(attachwire.RoleHost, ""),
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

	d := relaytest.MustDial(t, base+room, mint(attachwire.RoleDriver, "dan"),
		attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleDriver, Sealed: k.ID().String()})
	pen := relaytest.ExpectControl[attachwire.PenGranted](t, d)
	send(d, attachwire.Input{InputSeq: 1, PenGeneration: pen.PenGeneration, Data: []byte(markers["input"] + "\r")}.Frame(0, 0), 3)
	for f := relaytest.NextFrame(t, h); f.Type != attachwire.TypeInput; f = relaytest.NextFrame(t, h) {
	}
	// The driver reads the whole stream: the relay has served every frame.
	for f := relaytest.NextFrame(t, d); f.Type != attachwire.TypeMarker; f = relaytest.NextFrame(t, d) {
	}

	mem := readMemory(t, cmd.Process.Pid)
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
	plainRoom := "plainroom-" + tag
	room = plainRoom // the room mint's tokens are for
	ph := relaytest.MustDial(t, base+plainRoom, mint(attachwire.RoleHost, ""),
		attachwire.Subscribe{SessionID: plainRoom, AsRole: attachwire.RoleHost, Epoch: new(uint64(3))})
	relaytest.ExpectControl[attachwire.SnapshotRequest](t, ph)
	plainMark := "PLAINMARK" + tag
	if err := ph.Send(ctx, attachwire.NewOutputFrame(1, 1, []byte(plainMark+"\r\n"))); err != nil {
		t.Fatal(err)
	}
	relaytest.MustDial(t, base+plainRoom, mint(attachwire.RoleViewer, "vic"),
		attachwire.Subscribe{SessionID: plainRoom, AsRole: attachwire.RoleViewer, ResumeFrom: new(uint64(0))})
	deadline := time.Now().Add(10 * time.Second)
	for !bytes.Contains(readMemory(t, cmd.Process.Pid), []byte(plainMark)) {
		if time.Now().After(deadline) {
			t.Fatal("a plain room's output is not found in the relay's memory either: the scan proves nothing")
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

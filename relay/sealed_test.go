package relay_test

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"io/fs"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
)

// sealedHost is a test host of a sealed room: it seals what it sends
// under its key.
type sealedHost struct {
	*host
	room *seal.Room
}

func newSealKey(t testing.TB) *seal.Key {
	t.Helper()
	k, err := seal.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// dialSealedHost binds a host leg of epoch that subscribes sealed under k.
func dialSealedHost(t testing.TB, s *relaytest.Server, epoch uint64, k *seal.Key) *sealedHost {
	t.Helper()
	c := relaytest.MustDial(t, s.RoomURL(room), s.HostToken(t, room, epoch),
		attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleHost, Epoch: u64(epoch), Sealed: k.ID().String()})
	relaytest.ExpectControl[attachwire.SnapshotRequest](t, c)
	return &sealedHost{host: &host{t: t, c: c, epoch: epoch}, room: seal.NewRoom(k, room)}
}

// sendSealed seals f and sends it.
func (h *sealedHost) sendSealed(f attachwire.Frame) attachwire.Frame {
	h.t.Helper()
	sf, err := h.room.Seal(f, h.epoch)
	if err != nil {
		h.t.Fatal(err)
	}
	h.send(sf)
	return sf
}

func (h *sealedHost) output(p string) attachwire.Frame {
	h.seq++
	return h.sendSealed(attachwire.NewOutputFrame(h.seq, h.seq, []byte(p)))
}

func (h *sealedHost) snapshot(text string) attachwire.Frame {
	h.t.Helper()
	h.seq++
	sn, err := attachwire.NewSnapshot(h.seq-1, screen(h.epoch, text))
	if err != nil {
		h.t.Fatal(err)
	}
	f, err := sn.Frame(h.seq, h.seq)
	if err != nil {
		h.t.Fatal(err)
	}
	return h.sendSealed(f)
}

// TestSealedRoomRefusals: a sealed room turns away, with the sealed code
// and a sentence that says what to do, a viewer that does not speak the
// extension, one holding another key, and (the other way round) a sealed
// viewer of a plain room; and a viewer that joined before the host bound
// is turned away at the bind.
func TestSealedRoomRefusals(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	early := dialViewer(t, s, s.ViewerToken(t, room, "early"), attachwire.RoleViewer, attachwire.Subscribe{})
	relaytest.ExpectControl[attachwire.RoomState](t, early)
	k := newSealKey(t)
	dialSealedHost(t, s, 1, k)
	if cl := expectClosed(t, early, websocket.StatusPolicyViolation, attachwire.CodeSealed); cl.Err != nil && !bytes.Contains([]byte(cl.Err.Message), []byte("link that carries its key")) {
		t.Errorf("early viewer told %q", cl.Err.Message)
	}
	plain := dialViewer(t, s, s.ViewerToken(t, room, "plain"), attachwire.RoleViewer, attachwire.Subscribe{})
	if cl := expectClosed(t, plain, websocket.StatusPolicyViolation, attachwire.CodeSealed); cl.Err != nil && cl.Err.Retryable {
		t.Error("a refusal for want of the key is retryable")
	}
	other := dialViewer(t, s, s.DriverToken(t, room, "other"), attachwire.RoleDriver, attachwire.Subscribe{Sealed: newSealKey(t).ID().String()})
	if cl := expectClosed(t, other, websocket.StatusPolicyViolation, attachwire.CodeSealed); cl.Err != nil && !bytes.Contains([]byte(cl.Err.Message), []byte("new link")) {
		t.Errorf("other key told %q", cl.Err.Message)
	}
	bad := dialViewer(t, s, s.ViewerToken(t, room, "bad"), attachwire.RoleViewer, attachwire.Subscribe{Sealed: "not a key id"})
	expectClosed(t, bad, websocket.StatusProtocolError, attachwire.CodeFraming)

	s2 := relaytest.NewServer(t, quiet())
	dialHost(t, s2, 1)
	sealedViewer := relaytest.MustDial(t, s2.RoomURL(room), s2.ViewerToken(t, room, "v"),
		attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer, Sealed: k.ID().String()})
	expectClosed(t, sealedViewer, websocket.StatusPolicyViolation, attachwire.CodeSealed)
}

// TestSealedRoomServesWhatTheHostSealed: a viewer with the key gets the
// frames exactly as the host sealed them (the relay neither sanitizes nor
// re-encodes them), they open to what the host wrote, escape sequences
// the relay's sanitizer would remove included, and a late joiner gets the
// host's sealed snapshot.
func TestSealedRoomServesWhatTheHostSealed(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	k := newSealKey(t)
	h := dialSealedHost(t, s, 4, k)
	snap := h.snapshot("hello")
	raw := "\x1b]52;c;Y2xpcA==\x07secret"
	out := h.output(raw)
	waitIngested(t, s, h.host)
	v := dialViewer(t, s, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer, attachwire.Subscribe{Sealed: k.ID().String()})
	vr := seal.NewRoom(k, room)
	got := relaytest.NextFrame(t, v)
	if got.Type != attachwire.TypeSnapshot || !bytes.Equal(got.Payload, snap.Payload) {
		t.Fatalf("late joiner got %v seq %d, want the host's sealed snapshot", got.Type, got.Seq)
	}
	opened, err := vr.Open(got, 4)
	if err != nil {
		t.Fatal(err)
	}
	if _, scr := snapshotOf(t, opened); text(scr) != "hello" {
		t.Errorf("snapshot shows %q", text(scr))
	}
	got = relaytest.NextFrame(t, v)
	if !bytes.Equal(got.Payload, out.Payload) {
		t.Fatal("the relay changed a sealed Output frame")
	}
	o, err := vr.Open(got, 4)
	if err != nil || string(o.Payload) != raw {
		t.Fatalf("opened %q, %v", o.Payload, err)
	}
	// Input from a driver with the key reaches the host stamped, still
	// sealed, and opens there.
	d := dialViewer(t, s, s.DriverToken(t, room, "dan"), attachwire.RoleDriver, attachwire.Subscribe{Sealed: k.ID().String()})
	ps := relaytest.ExpectControl[attachwire.PenGranted](t, d)
	in, err := vr.Seal(attachwire.Input{InputSeq: 1, PenGeneration: ps.PenGeneration, Data: []byte("hunter2")}.Frame(2, 0), 4)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Send(ctxT(t), in); err != nil {
		t.Fatal(err)
	}
	var hf attachwire.Frame
	for hf.Type != attachwire.TypeInput {
		hf = relaytest.NextFrame(t, h.c)
	}
	if bytes.Contains(hf.Payload, []byte("hunter2")) {
		t.Fatal("the host got the input in the clear")
	}
	hin, err := h.room.Open(hf, 4)
	if err != nil {
		t.Fatal(err)
	}
	if dec, _ := attachwire.DecodeInput(hin.Payload); string(dec.Data) != "hunter2" || dec.UserID != "dan" {
		t.Errorf("host opened %q from %q", dec.Data, dec.UserID)
	}
}

// TestSealedRoomKeyChange: a host that comes back under a new key starts
// a new generation: viewers holding the old key are turned away, and the
// frames sealed under it are not served to anyone.
func TestSealedRoomKeyChange(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	oldKey := newSealKey(t)
	h := dialSealedHost(t, s, 2, oldKey)
	h.snapshot("old")
	h.output("old output")
	waitIngested(t, s, h.host)
	v := dialViewer(t, s, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer, attachwire.Subscribe{Sealed: oldKey.ID().String()})
	relaytest.NextFrame(t, v)
	h.c.Close()
	waitHostGone(t, s)

	newKey := newSealKey(t)
	h2 := dialSealedHost(t, s, 2, newKey)
	expectClosed(t, v, websocket.StatusPolicyViolation, attachwire.CodeSealed)
	again := dialViewer(t, s, s.ViewerToken(t, room, "ann2"), attachwire.RoleViewer, attachwire.Subscribe{Sealed: oldKey.ID().String()})
	expectClosed(t, again, websocket.StatusPolicyViolation, attachwire.CodeSealed)

	h2.seq = 0
	h2.snapshot("new")
	waitIngested(t, s, h2.host)
	nv := dialViewer(t, s, s.ViewerToken(t, room, "bob"), attachwire.RoleViewer, attachwire.Subscribe{Sealed: newKey.ID().String()})
	f := relaytest.NextFrame(t, nv)
	o, err := seal.NewRoom(newKey, room).Open(f, 2)
	if err != nil {
		t.Fatalf("the new key's viewer got a frame it cannot open: %v seq %d: %v", f.Type, f.Seq, err)
	}
	if _, scr := snapshotOf(t, o); text(scr) != "new" {
		t.Errorf("new viewer sees %q", text(scr))
	}
}

// TestSealedRoomRefusesMalformedSealedFrames: the relay checks what it
// can read of a sealed frame; a box too short to be one is the host's
// framing error.
func TestSealedRoomRefusesMalformedSealedFrames(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	h := dialSealedHost(t, s, 1, newSealKey(t))
	h.send(attachwire.NewOutputFrame(1, 1, []byte("plain text, not sealed")))
	expectClosed(t, h.c, websocket.StatusProtocolError, attachwire.CodeFraming)
}

// TestSealedRoomLane: a degraded-lane viewer states its key id in
// ?sealed=; without it a sealed room answers 403, with it the viewer gets
// the host's sealed frames.
func TestSealedRoomLane(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	k := newSealKey(t)
	h := dialSealedHost(t, s, 1, k)
	h.snapshot("lane")
	waitIngested(t, s, h.host)
	_, resp, err := relaytest.DialSSE(ctxT(t), relaytest.LaneURL(s.RoomURL(room), "/sse"), s.ViewerToken(t, room, "w"))
	if err == nil || resp.StatusCode != http.StatusForbidden {
		t.Fatalf("lane viewer without the key: %v %v", err, resp)
	}
	if _, resp, err := relaytest.DialSSE(ctxT(t), relaytest.LaneURL(s.RoomURL(room), "/sse?sealed=x"), s.ViewerToken(t, room, "w2")); err == nil || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("lane viewer with a malformed key id: %v %v", err, resp)
	}
	sse := openLaneViewer(t, s, s.ViewerToken(t, room, "w3"), "?sealed="+k.ID().String())
	f := nextSSEOf(t, sse, attachwire.TypeSnapshot)
	if _, err := seal.NewRoom(k, room).Open(f, 1); err != nil {
		t.Fatal(err)
	}
}

// TestSealedRoomHoldsNoPlaintext writes unique markers through a sealed
// room (Output, a Marker label, a snapshot's screen, a driver's Input, the
// post-Exit screen) with a relay that keeps a history on disk and records
// every room, then looks for them in the relay's ring, its history files
// and its recording directory: none is there, while a viewer with the key
// reads each one.
func TestSealedRoomHoldsNoPlaintext(t *testing.T) {
	histDir, recDir := t.TempDir(), t.TempDir()
	cfg := quiet()
	cfg.HistoryDir = histDir
	cfg.Record = relay.RecordConfig{Dir: recDir, All: true}
	s := relaytest.NewServer(t, cfg)
	k := newSealKey(t)
	h := dialSealedHost(t, s, 6, k)
	h.snapshot("MKsnap")
	h.output("MARK-output-7f3a")
	h.seq++
	mk, _ := attachwire.Marker{Label: "$ MARK-label-77e1"}.Frame(h.seq, h.seq)
	h.sendSealed(mk)
	d := dialViewer(t, s, s.DriverToken(t, room, "dan"), attachwire.RoleDriver, attachwire.Subscribe{Sealed: k.ID().String()})
	pen := relaytest.ExpectControl[attachwire.PenGranted](t, d)
	vr := seal.NewRoom(k, room)
	in, err := vr.Seal(attachwire.Input{InputSeq: 1, PenGeneration: pen.PenGeneration, Data: []byte("MARK-input-c0de")}.Frame(0, 0), 6)
	if err != nil {
		t.Fatal(err)
	}
	if err := d.Send(ctxT(t), in); err != nil {
		t.Fatal(err)
	}
	for f := relaytest.NextFrame(t, h.c); f.Type != attachwire.TypeInput; f = relaytest.NextFrame(t, h.c) {
	}
	h.seq++
	h.sendSealed(attachwire.Exit{Code: 0}.Frame(h.seq, h.seq))
	sn, _ := attachwire.NewSnapshot(h.seq, screen(6, "MKfinal"))
	ff, _ := sn.Frame(0, 0)
	sff, err := h.room.SealFinal(ff, 6)
	if err != nil {
		t.Fatal(err)
	}
	h.send(sff)
	waitIngested(t, s, h.host)

	// A viewer with the key reads them all.
	v := dialViewer(t, s, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer, attachwire.Subscribe{Sealed: k.ID().String()})
	f := relaytest.NextFrame(t, v)
	o, err := vr.Open(f, 6)
	if err != nil {
		t.Fatal(err)
	}
	if _, scr := snapshotOf(t, o); text(scr) != "MKfinal" {
		t.Errorf("the late joiner's final screen shows %q", text(scr))
	}

	markers := [][]byte{[]byte("MARK-"), []byte("MKsnap"), []byte("MKfinal")}
	scan := func(where string, b []byte) {
		t.Helper()
		for _, m := range markers {
			if bytes.Contains(b, m) {
				t.Errorf("%s holds %q", where, m)
			}
		}
	}
	wires := relay.RingWires(s.Relay, relaytest.DefaultOrg, room)
	if len(wires) < 4 {
		t.Fatalf("the ring holds %d frames", len(wires))
	}
	for _, w := range wires {
		scan("the ring", w)
	}
	files := 0
	for _, dir := range []string{histDir, recDir} {
		filepath.WalkDir(dir, func(p string, e fs.DirEntry, err error) error {
			if err != nil || e.IsDir() {
				return nil
			}
			b, err := os.ReadFile(p)
			if err != nil {
				t.Error(err)
				return nil
			}
			files++
			scan(p, b)
			return nil
		})
	}
	if files == 0 {
		t.Error("the relay wrote no history: nothing was looked at")
	}

	// The recording is the sealed stream, which the key opens.
	var rec []string
	testkit.Eventually(t, "the sealed recording", func() bool {
		rec, _ = filepath.Glob(filepath.Join(recDir, "*.sealed.frames"))
		return len(rec) == 1
	})
	b, err := os.ReadFile(rec[0])
	if err != nil {
		t.Fatal(err)
	}
	var opened strings.Builder
	fr := attachwire.NewFileReader(bytes.NewReader(b))
	for {
		f, err := fr.ReadFrame()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			t.Fatalf("the recording: %v", err)
		}
		o, err := vr.Open(f, 6)
		if err != nil {
			t.Fatalf("recorded %v seq %d does not open: %v", f.Type, f.Seq, err)
		}
		switch o.Type {
		case attachwire.TypeOutput:
			opened.Write(o.Payload)
		case attachwire.TypeMarker:
			m, _ := attachwire.DecodeMarker(o.Payload)
			opened.WriteString(m.Label)
		}
	}
	if !strings.Contains(opened.String(), "MARK-output-7f3a") || !strings.Contains(opened.String(), "MARK-label-77e1") {
		t.Errorf("the recording opens to %q", opened.String())
	}
}

// TestSealedRoomAcrossTheCluster: host on node A sealing, viewers on node
// B: one without the key is turned away with the sealed sentence, one
// with it reads the host's frames; nothing NATS carries between the nodes
// holds the markers written through the room.
func TestSealedRoomAcrossTheCluster(t *testing.T) {
	ns := natsServer(t)
	spy := spyOn(t, ns, ">")
	nodes := startCluster(t, ns, "a", "b")
	a, b := nodes[0], nodes[1]
	k := newSealKey(t)
	c := relaytest.MustDial(t, a.RoomURL(room), a.HostToken(t, room, 1),
		attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleHost, Epoch: u64(1), Sealed: k.ID().String()})
	relaytest.ExpectControl[attachwire.SnapshotRequest](t, c)
	h := &sealedHost{host: &host{t: t, c: c, epoch: 1}, room: seal.NewRoom(k, room)}

	plain := relaytest.MustDial(t, b.RoomURL(room), a.ViewerToken(t, room, "plain"), attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer})
	if cl := expectClosed(t, plain, websocket.StatusPolicyViolation, attachwire.CodeSealed); cl.Err != nil && !bytes.Contains([]byte(cl.Err.Message), []byte("carries its key")) {
		t.Errorf("a mirror's viewer without the key was told %q", cl.Err.Message)
	}
	v := relaytest.MustDial(t, b.RoomURL(room), a.DriverToken(t, room, "dan"),
		attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleDriver, Sealed: k.ID().String()})
	relaytest.ExpectControl[attachwire.SnapshotRequest](t, h.c)
	h.snapshot("MKclus")
	h.output("MARK-cluster-out")
	vr := seal.NewRoom(k, room)
	got, gen := "", uint64(0)
	for !strings.Contains(got, "MARK-cluster-out") || gen == 0 {
		f, err := v.Next(ctxT(t))
		if err != nil {
			t.Fatal(err)
		}
		if f.Type == attachwire.TypeControl {
			if c, err := attachwire.DecodeControl(f.Payload); err == nil {
				if p, ok := c.(attachwire.PenGranted); ok {
					gen = p.PenGeneration
				}
			}
			continue
		}
		o, err := vr.Open(f, 1)
		if err != nil {
			t.Fatalf("%v seq %d from the mirror: %v", f.Type, f.Seq, err)
		}
		if o.Type == attachwire.TypeOutput {
			got += string(o.Payload)
		}
	}
	in, _ := vr.Seal(attachwire.Input{InputSeq: 1, PenGeneration: gen, Data: []byte("MARK-cluster-in")}.Frame(0, 0), 1)
	if err := v.Send(ctxT(t), in); err != nil {
		t.Fatal(err)
	}
	untilFrame(t, h.c, attachwire.TypeInput)
	seen := spy.seen()
	if len(seen) == 0 {
		t.Fatal("the spy saw no NATS message")
	}
	for _, m := range seen {
		for _, mark := range []string{"MARK-", "MKclus"} {
			if bytes.Contains(m, []byte(mark)) {
				t.Errorf("a NATS message holds %q: %.80q", mark, m)
			}
		}
	}
}

// TestSealedRoomHistoryIndex: a sealed room's history index states the
// key id its frames are sealed under and the host's epoch (what a page
// needs to open them, and to tell a history under another key from a
// damaged one); a host back under a new key starts a history that states
// the new one and holds nothing of the old. A plain room's states no key.
func TestSealedRoomHistoryIndex(t *testing.T) {
	cfg := quiet()
	cfg.HistoryDir = t.TempDir()
	s := relaytest.NewServer(t, cfg)
	type index struct {
		First, Head uint64
		Epoch       uint64
		Sealed      *string
	}
	read := func() index {
		t.Helper()
		req, err := http.NewRequestWithContext(ctxT(t), http.MethodGet, relaytest.LaneURL(s.RoomURL(room), "/history"), nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer "+s.ViewerToken(t, room, "rewinder"))
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var ix index
		if err := json.NewDecoder(resp.Body).Decode(&ix); err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("history index: %d %v", resp.StatusCode, err)
		}
		return ix
	}
	waitHead := func(head uint64) index {
		t.Helper()
		var ix index
		testkit.Eventually(t, "the history to reach the host's head", func() bool { ix = read(); return ix.Head >= head })
		return ix
	}

	oldKey := newSealKey(t)
	h := dialSealedHost(t, s, 3, oldKey)
	h.snapshot("old")
	h.output("old output")
	ix := waitHead(h.seq)
	if ix.Sealed == nil || *ix.Sealed != oldKey.ID().String() || ix.Epoch != 3 {
		t.Fatalf("the sealed room's index states key %v epoch %d, want %s and 3", ix.Sealed, ix.Epoch, oldKey.ID())
	}
	h.c.Close()
	waitHostGone(t, s)

	newKey := newSealKey(t)
	h2 := dialSealedHost(t, s, 3, newKey)
	h2.seq = 0
	h2.snapshot("new")
	ix = waitHead(h2.seq)
	if ix.Sealed == nil || *ix.Sealed != newKey.ID().String() || ix.First != 1 {
		t.Fatalf("after the new key the index states key %v from seq %d, want %s from 1", ix.Sealed, ix.First, newKey.ID())
	}
	h2.c.Close()
	waitHostGone(t, s)

	p := dialHost(t, s, 5)
	p.output("plain")
	ix = waitHead(p.seq)
	if ix.Sealed != nil || ix.Epoch != 5 {
		t.Fatalf("the plain room's index states key %v epoch %d, want none and 5", ix.Sealed, ix.Epoch)
	}
}

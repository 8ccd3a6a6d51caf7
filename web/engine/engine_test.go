package engine

import (
	"bytes"
	"encoding/binary"
	"errors"
	"slices"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/sanitize"
	"go.uber.org/goleak"
)

func TestMain(m *testing.M) { goleak.VerifyTestMain(m) }

const me = "jti-me"

// screen returns a cols x rows screen of epoch ep whose first row reads
// text.
func screen(tb testing.TB, ep uint64, cols, rows int, text string) *attachwire.Screen {
	tb.Helper()
	s := &attachwire.Screen{Epoch: ep, Cols: cols, Rows: rows, CursorVisible: true}
	s.Primary = make([]attachwire.Cell, cols*rows)
	for i := range s.Primary {
		s.Primary[i] = attachwire.BlankCell()
	}
	for i, r := range text {
		s.Primary[i].Content = string(r)
	}
	return s
}

func wire(tb testing.TB, f attachwire.Frame, err error) []byte {
	tb.Helper()
	if err != nil {
		tb.Fatal(err)
	}
	b, err := f.MarshalBinary()
	if err != nil {
		tb.Fatal(err)
	}
	return b
}

func snapshotMsg(tb testing.TB, seq, atSeq uint64, s *attachwire.Screen) []byte {
	tb.Helper()
	snap, err := attachwire.NewSnapshot(atSeq, s)
	if err != nil {
		tb.Fatal(err)
	}
	f, err := snap.Frame(seq, 0)
	return wire(tb, f, err)
}

func outputMsg(tb testing.TB, seq uint64, p string) []byte {
	return wire(tb, attachwire.NewOutputFrame(seq, 0, []byte(p)), nil)
}

func controlMsg(tb testing.TB, c attachwire.Control) []byte {
	tb.Helper()
	f, err := attachwire.ControlFrame(c)
	return wire(tb, f, err)
}

func apply(tb testing.TB, e *Engine, msg []byte) []Event {
	tb.Helper()
	evs, err := e.Apply(msg)
	if err != nil {
		tb.Fatalf("Apply: %v", err)
	}
	return evs
}

// written concatenates the Write events' bytes.
func written(evs []Event) string {
	var b strings.Builder
	for _, ev := range evs {
		if ev.Kind == Write {
			b.Write(ev.Data)
		}
	}
	return b.String()
}

func kinds(evs []Event) []Kind {
	var ks []Kind
	for _, ev := range evs {
		ks = append(ks, ev.Kind)
	}
	return ks
}

func TestSnapshotThenFramesDeduplicated(t *testing.T) {
	e := New(Options{SessionID: "s", ConnID: me})
	if evs := apply(t, e, outputMsg(t, 3, "before any snapshot")); evs != nil {
		t.Fatalf("output before the first snapshot applied: %v", kinds(evs))
	}
	evs := apply(t, e, snapshotMsg(t, 0, 5, screen(t, 9, 20, 3, "hello")))
	if len(evs) != 2 || evs[0].Kind != Size || evs[0].Cols != 20 || evs[0].Rows != 3 || evs[1].Kind != Write {
		t.Fatalf("snapshot events = %+v, want Size 20x3 then Write", kinds(evs))
	}
	if !strings.Contains(written(evs), "hello") {
		t.Errorf("repaint %q lacks the screen's text", written(evs))
	}
	for _, tc := range []struct {
		name string
		seq  uint64
		want string
	}{
		{"the snapshot's own seq is a duplicate", 5, ""},
		{"older is a duplicate", 2, ""},
		{"atSeq+1 applies", 6, "six"},
		{"a replayed frame is a duplicate", 6, ""},
		{"the next applies", 7, "seven"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			text := map[uint64]string{2: "two", 5: "five", 6: "six", 7: "seven"}[tc.seq]
			if got := written(apply(t, e, outputMsg(t, tc.seq, text))); got != tc.want {
				t.Errorf("seq %d wrote %q, want %q", tc.seq, got, tc.want)
			}
		})
	}
	if seq, ep, ok := e.Applied(); seq != 7 || ep != 9 || !ok {
		t.Errorf("Applied = %d, %d, %v; want 7, 9, true", seq, ep, ok)
	}
}

func TestSubscribeResumes(t *testing.T) {
	e := New(Options{SessionID: "room1", ConnID: me, Driver: true})
	first, err := e.Subscribe(80, 24)
	if err != nil {
		t.Fatal(err)
	}
	sub := decodeSubscribe(t, first[0])
	if sub.ResumeFrom != nil || sub.ResumeEpoch != nil || sub.AsRole != attachwire.RoleDriver ||
		sub.SessionID != "room1" || sub.Viewport == nil || sub.Viewport.Cols != 80 {
		t.Errorf("fresh subscribe = %+v", sub)
	}
	apply(t, e, snapshotMsg(t, 0, 10, screen(t, 4, 10, 2, "x")))
	apply(t, e, outputMsg(t, 11, "y"))
	again, err := e.Subscribe(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	sub = decodeSubscribe(t, again[0])
	if sub.ResumeFrom == nil || *sub.ResumeFrom != 11 || sub.ResumeEpoch == nil || *sub.ResumeEpoch != 4 || sub.Viewport != nil {
		t.Errorf("resuming subscribe = %+v, want resumeFrom 11 epoch 4 and no viewport", sub)
	}
}

func decodeSubscribe(t *testing.T, f attachwire.Frame) attachwire.Subscribe {
	t.Helper()
	c, err := attachwire.DecodeControl(f.Payload)
	if err != nil {
		t.Fatal(err)
	}
	sub, ok := c.(attachwire.Subscribe)
	if !ok {
		t.Fatalf("first message is %T, want subscribe", c)
	}
	return sub
}

func TestSnapshotKeyedOnAtSeq(t *testing.T) {
	e := New(Options{SessionID: "s"})
	apply(t, e, snapshotMsg(t, 0, 10, screen(t, 1, 10, 2, "base")))
	apply(t, e, outputMsg(t, 11, "a"))
	if evs := apply(t, e, snapshotMsg(t, 0, 9, screen(t, 1, 10, 2, "stale"))); evs != nil {
		t.Errorf("a snapshot behind the applied seq repainted: %v", kinds(evs))
	}
	if evs := apply(t, e, snapshotMsg(t, 12, 11, screen(t, 1, 10, 2, "same"))); evs != nil {
		t.Errorf("an in-stream snapshot continuing the stream repainted: %v", kinds(evs))
	}
	if seq, _, _ := e.Applied(); seq != 12 {
		t.Errorf("applied = %d after the in-stream snapshot 12, want 12", seq)
	}
	if evs := apply(t, e, snapshotMsg(t, 0, 20, screen(t, 1, 10, 2, "gap"))); !strings.Contains(written(evs), "gap") {
		t.Errorf("a snapshot past a gap did not repaint: %v", kinds(evs))
	}
	if evs := apply(t, e, snapshotMsg(t, 0, 3, screen(t, 2, 10, 2, "new epoch"))); !strings.Contains(written(evs), "new epoch") {
		t.Errorf("a snapshot of another epoch did not repaint: %v", kinds(evs))
	}
	if seq, ep, _ := e.Applied(); seq != 3 || ep != 2 {
		t.Errorf("Applied = %d, %d after the new epoch, want 3, 2", seq, ep)
	}
}

// hostile is output no viewer may pass on: a clipboard write, queries,
// deferred-reply switches, split across frames.
var hostile = []string{
	"\x1b]52;c;cHduZWQ=\x07\x1b[6n\x1b[c\x1bP$qm\x1b\\",
	"\x1b]10;?\x07\x1b[?2004h\x1b[?1000hplain\x1b]5", "2;c;eA==\x07\x1b[1", "4t",
}

func TestOutputSanitizedPerProfile(t *testing.T) {
	for _, holding := range []bool{false, true} {
		profile := sanitize.Viewer
		if holding {
			profile = sanitize.Driver
		}
		e := New(Options{SessionID: "s", ConnID: me})
		apply(t, e, snapshotMsg(t, 0, 0, screen(t, 1, 80, 24, "")))
		if holding {
			apply(t, e, controlMsg(t, attachwire.PenState{HolderConnID: me, PenGeneration: 1}))
			apply(t, e, snapshotMsg(t, 0, 0, screen(t, 1, 80, 24, ""))) // the refresh
		}
		ref := sanitize.New(sanitize.Options{Profile: profile})
		ref.SetSize(80, 24)
		var got, want []byte
		for i, p := range hostile {
			got = append(got, written(apply(t, e, outputMsg(t, uint64(i+1), p)))...)
			want = ref.Append(want, []byte(p))
		}
		if !bytes.Equal(got, want) {
			t.Errorf("holding=%v: page output %q, Go sanitizer %q", holding, got, want)
		}
		for _, bad := range []string{"52;", "[6n", "[c", "$q", "]10", "[14t"} {
			if bytes.Contains(got, []byte(bad)) {
				t.Errorf("holding=%v: output %q passes %q", holding, got, bad)
			}
		}
		if has := bytes.Contains(got, []byte("\x1b[?2004h")); has != holding {
			t.Errorf("holding=%v: bracketed paste passed = %v", holding, has)
		}
	}
}

func TestInputOnlyWithThePen(t *testing.T) {
	e := New(Options{SessionID: "s", ConnID: me, Driver: true})
	apply(t, e, snapshotMsg(t, 0, 4, screen(t, 1, 10, 2, "")))
	if m, err := e.Input([]byte("a")); m != nil || err != nil {
		t.Fatalf("Input without the pen = %x, %v; want nil, nil", m, err)
	}
	evs := apply(t, e, controlMsg(t, attachwire.PenGranted{UserID: "u", ConnID: me, PenGeneration: 3}))
	if len(evs) != 2 || evs[0].Kind != Pen || !evs[0].Holding || evs[1].Kind != Send {
		t.Fatalf("pen_granted events = %+v, want Pen holding then Send (the refresh)", evs)
	}
	if f := evs[1].Frame; f.Type != attachwire.TypeControl {
		t.Errorf("refresh is %v, want a resume_from control", f.Type)
	} else if c, _ := attachwire.DecodeControl(f.Payload); c != (attachwire.ResumeFrom{Seq: 0}) {
		t.Errorf("refresh = %#v, want resume_from seq 0", c)
	}
	for i, want := range []uint64{1, 2} {
		msgs := input(t, e, []byte("k"))
		if len(msgs) != 1 {
			t.Fatalf("input %d: %d messages, want 1", i, len(msgs))
		}
		f := msgs[0]
		in, err := attachwire.DecodeInput(f.Payload)
		if err != nil {
			t.Fatal(err)
		}
		if in.InputSeq != want || in.PenGeneration != 3 || in.UserID != "" || f.Seq != 4 {
			t.Errorf("input %d = %+v (header seq %d), want inputSeq %d gen 3, no userId, header seq 4", i, in, f.Seq, want)
		}
	}
	evs = apply(t, e, controlMsg(t, attachwire.PenRevoked{UserID: "u", ConnID: me, PenGeneration: 4}))
	if len(evs) != 2 || evs[0].Holding || !strings.Contains(written(evs), "?2004l") {
		t.Errorf("pen_revoked events = %+v, want Pen released and the input modes turned off", evs)
	}
	if m, _ := e.Input([]byte("a")); m != nil {
		t.Errorf("Input after pen_revoked = %x, want nil", m)
	}
	apply(t, e, controlMsg(t, attachwire.PenState{HolderConnID: "other", HolderUserID: "o", PenGeneration: 5}))
	if e.Holding() {
		t.Errorf("holding after pen_state names another connection")
	}
}

func TestRefreshRepaintsWithInputModes(t *testing.T) {
	e := New(Options{SessionID: "s", ConnID: me, Driver: true})
	s := screen(t, 1, 10, 2, "")
	s.Modes = attachwire.ModeBracketedPaste
	apply(t, e, snapshotMsg(t, 0, 8, s))
	apply(t, e, controlMsg(t, attachwire.PenState{HolderConnID: me, PenGeneration: 1}))
	// The relay answers resume_from 0 with a snapshot that may be behind
	// what the page applied; the refresh repaints it anyway.
	evs := apply(t, e, snapshotMsg(t, 8, 7, s))
	if !strings.Contains(written(evs), "\x1b[?2004h") {
		t.Errorf("refresh repaint %q lacks bracketed paste", written(evs))
	}
	if seq, _, _ := e.Applied(); seq != 8 {
		t.Errorf("applied = %d after the refresh, want 8", seq)
	}
}

func TestAcksAndResend(t *testing.T) {
	e := New(Options{SessionID: "s", ConnID: me, Driver: true})
	apply(t, e, snapshotMsg(t, 0, 1, screen(t, 1, 10, 2, "")))
	apply(t, e, controlMsg(t, attachwire.PenState{HolderConnID: me, PenGeneration: 2}))
	for _, k := range "abc" {
		input(t, e, []byte{byte(k)})
	}
	if evs := apply(t, e, controlMsg(t, attachwire.InputAck{AckInputSeq: 1})); evs != nil {
		t.Errorf("a contiguous ack produced %v", kinds(evs))
	}
	msgs, err := e.Subscribe(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	if got := inputSeqs(t, msgs[1:]); !slices.Equal(got, []uint64{2, 3}) {
		t.Errorf("resent after reconnect: %v, want [2 3]", got)
	}
	// A new relay knows nothing of this connection: it acks 0.
	evs := apply(t, e, controlMsg(t, attachwire.InputAck{AckInputSeq: 0}))
	var sent []attachwire.Frame
	for _, ev := range evs {
		sent = append(sent, ev.Frame)
	}
	if got := inputSeqs(t, sent); !slices.Equal(got, []uint64{1, 2}) {
		t.Errorf("renumbered after the relay forgot: %v, want [1 2]", got)
	}
	apply(t, e, controlMsg(t, attachwire.InputAck{AckInputSeq: 2}))
	if got := inputSeqs(t, input(t, e, []byte("d"))); !slices.Equal(got, []uint64{3}) {
		t.Errorf("next input after the acks = %v, want [3]", got)
	}
}

// TestPendingFollowsAcks: Pending is what the lane posts next; it starts
// right after the ack, stays contiguous as keys are typed and acks come,
// and is capped by its argument.
func TestPendingFollowsAcks(t *testing.T) {
	e := New(Options{SessionID: "s", ConnID: me, Driver: true})
	apply(t, e, snapshotMsg(t, 0, 1, screen(t, 1, 10, 2, "")))
	apply(t, e, controlMsg(t, attachwire.PenState{HolderConnID: me, PenGeneration: 1}))
	pending := func(n int) []uint64 {
		t.Helper()
		msgs, first := e.Pending(n, 0)
		seqs := inputSeqs(t, msgs)
		if len(seqs) > 0 && seqs[0] != first {
			t.Errorf("Pending(%d) says the first is %d, is %d", n, first, seqs[0])
		}
		return seqs
	}
	if got := pending(10); len(got) != 0 {
		t.Fatalf("pending before any key: %v", got)
	}
	for _, k := range "abcd" {
		input(t, e, []byte{byte(k)})
	}
	for _, c := range []struct {
		name string
		ack  uint64
		n    int
		want []uint64
	}{
		{"none acked", 0, 10, []uint64{1, 2, 3, 4}},
		{"capped", 0, 2, []uint64{1, 2}},
		{"after an ack", 2, 10, []uint64{3, 4}},
		{"the same ack again", 2, 10, []uint64{3, 4}},
		{"negative cap", 2, -1, nil},
		{"all acked", 4, 10, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			apply(t, e, controlMsg(t, attachwire.InputAck{AckInputSeq: c.ack}))
			if got := pending(c.n); !slices.Equal(got, c.want) {
				t.Errorf("Pending(%d) = %v, want %v", c.n, got, c.want)
			}
		})
	}
}

// TestInputSplitsAPaste: a paste becomes Input frames of at most
// maxInputChunk bytes each, in order, whole; one past the pending bounds
// is refused whole, never in part.
func TestInputSplitsAPaste(t *testing.T) {
	e := New(Options{SessionID: "s", ConnID: me, Driver: true})
	apply(t, e, snapshotMsg(t, 0, 1, screen(t, 1, 10, 2, "")))
	apply(t, e, controlMsg(t, attachwire.PenState{HolderConnID: me, PenGeneration: 1}))
	paste := make([]byte, 3*maxInputChunk+5)
	for i := range paste {
		paste[i] = byte('a' + i%26)
	}
	msgs := input(t, e, paste)
	if got := inputSeqs(t, msgs); !slices.Equal(got, []uint64{1, 2, 3, 4}) {
		t.Fatalf("paste went as inputSeqs %v, want [1 2 3 4]", got)
	}
	var joined []byte
	for _, m := range msgs {
		in, _ := attachwire.DecodeInput(m.Payload)
		if len(in.Data) > maxInputChunk {
			t.Errorf("inputSeq %d carries %d bytes, over %d", in.InputSeq, len(in.Data), maxInputChunk)
		}
		joined = append(joined, in.Data...)
	}
	if !bytes.Equal(joined, paste) {
		t.Fatal("the frames do not carry the paste whole and in order")
	}
	m, err := e.Input(make([]byte, MaxPendingInputBytes))
	var full *InputFullError
	if m != nil || !errors.As(err, &full) {
		t.Fatalf("a paste past MaxPendingInputBytes went as %d messages (%v), want none and an *InputFullError", len(m), err)
	}
	if got := inputSeqs(t, input(t, e, []byte("k"))); !slices.Equal(got, []uint64{5}) {
		t.Fatalf("the key after a refused paste = %v, want [5]", got)
	}
}

// TestInputCutsAPasteOutsideItsEndMarker: a bracketed paste whose end
// marker straddles the 64 KiB mark is cut before the marker, not through
// it (a program that times an ESC out would take half a marker for a key);
// likewise a rune there goes whole into one frame.
func TestInputCutsAPasteOutsideItsEndMarker(t *testing.T) {
	for _, c := range []struct {
		name, tail string
		first      int // the first frame's data length
	}{
		{"end marker", "\x1b[201~", maxInputChunk - 2},
		{"rune", "€€", maxInputChunk - 2},
	} {
		t.Run(c.name, func(t *testing.T) {
			e := New(Options{SessionID: "s", ConnID: me, Driver: true})
			apply(t, e, snapshotMsg(t, 0, 1, screen(t, 1, 10, 2, "")))
			apply(t, e, controlMsg(t, attachwire.PenState{HolderConnID: me, PenGeneration: 1}))
			paste := append(bytes.Repeat([]byte("p"), maxInputChunk-2), c.tail...)
			var data [][]byte
			for _, m := range input(t, e, paste) {
				in, _ := attachwire.DecodeInput(m.Payload)
				data = append(data, in.Data)
			}
			if len(data) != 2 || len(data[0]) != c.first || !bytes.Equal(bytes.Join(data, nil), paste) {
				t.Fatalf("frames of %d bytes, want 2, the first of %d, giving the paste back", lens(data), c.first)
			}
		})
	}
}

func lens(bs [][]byte) []int {
	var n []int
	for _, b := range bs {
		n = append(n, len(b))
	}
	return n
}

// TestInputRefusedSaysWhy: input past either pending bound is refused
// whole with an *InputFullError whose message the page shows (before, Input
// returned nil, exactly as for a key typed without the pen, and the page
// dropped the paste without a word). Nothing of it is queued: the next
// input takes the next inputSeq.
func TestInputRefusedSaysWhy(t *testing.T) {
	cases := []struct {
		name    string
		before  func(e *Engine) // fills what awaits an ack
		data    int
		pending int // inputs awaiting an ack when refused
		want    string
	}{
		{"paste past the byte bound on its own", func(*Engine) {}, MaxPendingInputBytes + 1, 0, "a paste may be at most"},
		{"paste past the byte bound with what waits", func(e *Engine) { input(t, e, make([]byte, MaxPendingInputBytes/2)) },
			MaxPendingInputBytes/2 + 1, MaxPendingInputBytes / 2 / maxInputChunk, "still await the relay's ack"},
		{"key past the frame bound", func(e *Engine) {
			for range MaxPendingInputs {
				input(t, e, []byte("k"))
			}
		}, 1, MaxPendingInputs, "still await the relay's ack"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			e := New(Options{SessionID: "s", ConnID: me, Driver: true})
			apply(t, e, snapshotMsg(t, 0, 1, screen(t, 1, 10, 2, "")))
			apply(t, e, controlMsg(t, attachwire.PenState{HolderConnID: me, PenGeneration: 1}))
			c.before(e)
			m, err := e.Input(bytes.Repeat([]byte("p"), c.data))
			var full *InputFullError
			if m != nil || !errors.As(err, &full) {
				t.Fatalf("Input = %d messages, %v; want none and an *InputFullError", len(m), err)
			}
			if full.Bytes != c.data || full.PendingInputs != c.pending {
				t.Errorf("error carries %d bytes, %d pending; want %d, %d", full.Bytes, full.PendingInputs, c.data, c.pending)
			}
			if msg := err.Error(); !strings.HasPrefix(msg, "engine: ") || !strings.Contains(msg, c.want) {
				t.Errorf("message %q, want the engine: prefix and %q", msg, c.want)
			}
			if got, _ := e.Pending(MaxPendingInputs+1, 0); len(got) != c.pending {
				t.Errorf("%d inputs await an ack after the refusal, want %d", len(got), c.pending)
			}
		})
	}
}

// TestPendingBytesCap: the lane's batches are bounded by bytes too: Pending
// stops before the message that would pass maxBytes, but always returns
// at least the oldest.
func TestPendingBytesCap(t *testing.T) {
	e := New(Options{SessionID: "s", ConnID: me, Driver: true})
	apply(t, e, snapshotMsg(t, 0, 1, screen(t, 1, 10, 2, "")))
	apply(t, e, controlMsg(t, attachwire.PenState{HolderConnID: me, PenGeneration: 1}))
	msgs := input(t, e, make([]byte, 4*maxInputChunk))
	one := msgs[0].EncodedLen()
	for _, c := range []struct {
		name     string
		maxBytes int
		want     []uint64
	}{
		{"no cap", 0, []uint64{1, 2, 3, 4}},
		{"two fit", 2*one + 1, []uint64{1, 2}},
		{"exactly three", 3 * one, []uint64{1, 2, 3}},
		{"under one: still the oldest", 10, []uint64{1}},
	} {
		t.Run(c.name, func(t *testing.T) {
			got, _ := e.Pending(10, c.maxBytes)
			if seqs := inputSeqs(t, got); !slices.Equal(seqs, c.want) {
				t.Errorf("Pending(10, %d) = %v, want %v", c.maxBytes, seqs, c.want)
			}
		})
	}
}

// input is e.Input for input that must be taken.
func input(t testing.TB, e *Engine, data []byte) []attachwire.Frame {
	t.Helper()
	msgs, err := e.Input(data)
	if err != nil {
		t.Fatalf("Input(%d bytes): %v", len(data), err)
	}
	return msgs
}

func inputSeqs(t *testing.T, msgs []attachwire.Frame) []uint64 {
	t.Helper()
	var seqs []uint64
	for _, f := range msgs {
		if f.Type != attachwire.TypeInput {
			t.Fatalf("%v frame, want Input", f.Type)
		}
		in, err := attachwire.DecodeInput(f.Payload)
		if err != nil {
			t.Fatal(err)
		}
		seqs = append(seqs, in.InputSeq)
	}
	return seqs
}

func TestPresenceAndUIStrings(t *testing.T) {
	e := New(Options{SessionID: "s"})
	apply(t, e, controlMsg(t, attachwire.Presence{Op: attachwire.PresenceList, Members: []attachwire.Member{
		{UserID: "ann", ConnID: "1", Role: attachwire.RoleDriver, Driving: true},
		{UserID: "b\x1b]52;c;eA==\x07ob", ConnID: "2", Role: attachwire.RoleViewer},
	}}))
	apply(t, e, controlMsg(t, attachwire.Presence{Op: attachwire.PresenceJoin, Members: []attachwire.Member{{UserID: "cy", ConnID: "3", Name: "C\x1b[2Jy", Guest: true}}}))
	evs := apply(t, e, controlMsg(t, attachwire.Presence{Op: attachwire.PresenceLeave, Members: []attachwire.Member{{UserID: "ann", ConnID: "1"}}}))
	if len(evs) != 1 || evs[0].Kind != Presence || len(evs[0].Members) != 2 {
		t.Fatalf("presence = %+v, want bob and cy", evs)
	}
	for _, m := range evs[0].Members {
		if strings.ContainsAny(m.UserID, "\x1b\x07") || strings.ContainsAny(m.Name, "\x1b\x07") {
			t.Errorf("presence name %q (%q) keeps control characters", m.UserID, m.Name)
		}
	}
	if cy := evs[0].Members[1]; cy.Name == "" || !cy.Guest || cy.UserID != "cy" {
		t.Errorf("a guest's join = %+v, want its name and guest mark", cy)
	}
	evs = apply(t, e, controlMsg(t, attachwire.ErrorControl{Code: attachwire.CodeAuth, Message: "bad\x1b[6n token"}))
	if len(evs) != 1 || evs[0].Kind != Error || strings.Contains(evs[0].Message, "\x1b") || evs[0].Text != "auth" {
		t.Errorf("error event = %+v", evs)
	}
	evs = apply(t, e, controlMsg(t, attachwire.RoomState{State: attachwire.RoomStatus("live")}))
	if len(evs) != 1 || evs[0].Kind != Room || evs[0].Text != "live" {
		t.Errorf("room event = %+v", evs)
	}
}

func TestExitAndMarker(t *testing.T) {
	e := New(Options{SessionID: "s"})
	apply(t, e, snapshotMsg(t, 0, 1, screen(t, 1, 10, 2, "")))
	m, err := attachwire.Marker{Label: "step\x1b[2J 1"}.Frame(2, 0)
	evs := apply(t, e, wire(t, m, err))
	if len(evs) != 1 || evs[0].Kind != Marker || strings.Contains(evs[0].Text, "\x1b") {
		t.Errorf("marker = %+v", evs)
	}
	evs = apply(t, e, wire(t, attachwire.Exit{Code: 137, Signal: "SIGKILL"}.Frame(3, 0), nil))
	if len(evs) != 1 || evs[0].Kind != Exit || evs[0].Code != 137 || evs[0].Text != "SIGKILL" {
		t.Errorf("exit = %+v", evs)
	}
}

func TestFramingErrors(t *testing.T) {
	e := New(Options{SessionID: "s"})
	for name, msg := range map[string][]byte{
		"unknown type": {0x09, 0, 0},
		"empty":        {},
		"bad snapshot": {byte(attachwire.TypeSnapshot), 0, 0, 1},
		"bad control":  {byte(attachwire.TypeControl), 0, 0, 5, '{'},
		"zero resize":  append([]byte{byte(attachwire.TypeResize), 1, 0}, 0, 0, 0, 0),
	} {
		if name == "zero resize" {
			apply(t, e, snapshotMsg(t, 0, 0, screen(t, 1, 10, 2, "")))
		}
		if _, err := e.Apply(msg); err == nil {
			t.Errorf("%s: Apply accepted %x", name, msg)
		}
	}
	unknown := binary.AppendUvarint([]byte{byte(attachwire.TypeControl), 0, 0}, 17)
	unknown = append(unknown, `{"type":"future"}`...)
	if evs, err := e.Apply(unknown); err != nil || evs != nil {
		t.Errorf("unknown control type: %v, %v; want ignored", evs, err)
	}
}

// Options.MaxPendingBytes (the page's #maxpaste test switch) lowers the
// byte bound and never raises it.
func TestMaxPendingBytesOnlyLowers(t *testing.T) {
	cases := []struct {
		opt, fits, refused int
	}{
		{opt: 100 << 10, fits: 100 << 10, refused: 100<<10 + 1},
		{opt: 0, fits: MaxPendingInputBytes, refused: MaxPendingInputBytes + 1},
		{opt: -1, fits: MaxPendingInputBytes, refused: MaxPendingInputBytes + 1},
		{opt: 2 * MaxPendingInputBytes, fits: MaxPendingInputBytes, refused: MaxPendingInputBytes + 1},
	}
	for _, c := range cases {
		e := New(Options{SessionID: "s", ConnID: me, Driver: true, MaxPendingBytes: c.opt})
		apply(t, e, snapshotMsg(t, 0, 1, screen(t, 1, 10, 2, "")))
		apply(t, e, controlMsg(t, attachwire.PenState{HolderConnID: me, PenGeneration: 1}))
		var full *InputFullError
		if _, err := e.Input(make([]byte, c.refused)); !errors.As(err, &full) || full.MaxBytes != c.fits {
			t.Errorf("MaxPendingBytes %d: a paste of %d gave %v, want an *InputFullError with bound %d", c.opt, c.refused, err, c.fits)
		}
		if m, err := e.Input(make([]byte, c.fits)); err != nil || len(m) == 0 {
			t.Errorf("MaxPendingBytes %d: a paste of %d gave %d messages, %v; want it sent", c.opt, c.fits, len(m), err)
		}
	}
}

// A gap in the stream (which a conformant relay never makes) is not
// papered over: the frames after it wait, one resume_from asks for the
// rest, and the missing frame (a ring hit) or a snapshot (a miss) lets the
// stream go on.
func TestGapAsksForResume(t *testing.T) {
	for _, answer := range []string{"ring hit", "snapshot"} {
		t.Run(answer, func(t *testing.T) {
			e := New(Options{SessionID: "s"})
			apply(t, e, snapshotMsg(t, 0, 1, screen(t, 4, 10, 2, "")))
			apply(t, e, outputMsg(t, 2, "a"))
			evs := apply(t, e, outputMsg(t, 4, "c"))
			if len(evs) != 1 || evs[0].Kind != Send {
				t.Fatalf("a gap gave %v, want one Send", kinds(evs))
			}
			c, err := attachwire.DecodeControl(evs[0].Frame.Payload)
			if rf, ok := c.(attachwire.ResumeFrom); err != nil || !ok || rf.Seq != 2 || rf.Epoch == nil || *rf.Epoch != 4 {
				t.Fatalf("sent %#v (%v), want resume_from{2, 4}", c, err)
			}
			if evs := apply(t, e, outputMsg(t, 5, "d")); evs != nil {
				t.Fatalf("past the gap, waiting: %v, want nothing (one resume_from is enough)", kinds(evs))
			}
			got, want := "", "bcd"
			if answer == "snapshot" {
				if evs := apply(t, e, snapshotMsg(t, 0, 3, screen(t, 4, 10, 2, "ab"))); !strings.Contains(written(evs), "ab") {
					t.Fatalf("the snapshot did not repaint: %v", kinds(evs))
				}
				want = "cd"
			} else {
				got = written(apply(t, e, outputMsg(t, 3, "b")))
			}
			got += written(apply(t, e, outputMsg(t, 4, "c"))) + written(apply(t, e, outputMsg(t, 5, "d")))
			if got != want {
				t.Fatalf("after the %s: %q, want %q", answer, got, want)
			}
			if seq, _, _ := e.Applied(); seq != 5 {
				t.Errorf("applied %d, want 5", seq)
			}
		})
	}
}

// The session has ended with its Exit frame, or once a room that reported
// "ended" at a seq has been followed up to it.
func TestEnded(t *testing.T) {
	e := New(Options{SessionID: "s"})
	apply(t, e, controlMsg(t, attachwire.RoomState{State: attachwire.RoomEnded, SinceSeq: ptr(uint64(6))}))
	apply(t, e, snapshotMsg(t, 0, 5, screen(t, 1, 10, 2, "")))
	if e.Ended() {
		t.Fatal("ended before the stream reached the room's end")
	}
	apply(t, e, outputMsg(t, 6, "bye"))
	if !e.Ended() {
		t.Fatal("not ended at the room's end")
	}
	e = New(Options{SessionID: "s"})
	apply(t, e, snapshotMsg(t, 0, 1, screen(t, 1, 10, 2, "")))
	apply(t, e, controlMsg(t, attachwire.RoomState{State: attachwire.RoomEnded, SinceSeq: ptr(uint64(9))}))
	apply(t, e, controlMsg(t, attachwire.RoomState{State: attachwire.RoomLive}))
	apply(t, e, wire(t, attachwire.Exit{Code: 3}.Frame(2, 0), nil))
	if !e.Ended() {
		t.Fatal("not ended after Exit")
	}
}

func ptr[T any](v T) *T { return &v }

// With Options.Mirror the caller paints from its own screen: a snapshot
// comes as its Screen, an Output with its raw bytes, and the pen's
// changes ask for nothing.
func TestMirrorEvents(t *testing.T) {
	e := New(Options{SessionID: "s", ConnID: me, Mirror: true})
	evs := apply(t, e, snapshotMsg(t, 0, 3, screen(t, 2, 10, 2, "m")))
	if len(evs) != 1 || evs[0].Kind != Size || evs[0].Screen == nil || evs[0].Seq != 3 || evs[0].Screen.Primary[0].Content != "m" {
		t.Fatalf("snapshot = %+v, want one Size with the Screen at 3", evs)
	}
	evs = apply(t, e, outputMsg(t, 4, "\x1b[6nx"))
	if len(evs) != 1 || string(evs[0].Raw) != "\x1b[6nx" || string(evs[0].Data) != "x" || evs[0].Seq != 4 {
		t.Fatalf("output = %+v, want raw and sanitized bytes at 4", evs)
	}
	evs = apply(t, e, controlMsg(t, attachwire.PenState{HolderConnID: me, PenGeneration: 1}))
	if len(evs) != 1 || !evs[0].Holding || evs[0].PenGeneration != 1 {
		t.Fatalf("pen gained = %+v, want the Pen event alone", evs)
	}
	evs = apply(t, e, controlMsg(t, attachwire.PenRevoked{ConnID: me, PenGeneration: 2}))
	if len(evs) != 1 || evs[0].Holding {
		t.Fatalf("pen lost = %+v, want the Pen event alone", evs)
	}
	rs, err := attachwire.Resize{Cols: 30, Rows: 5, PxWidth: 300, PxHeight: 100}.Frame(5, 0)
	evs = apply(t, e, wire(t, rs, err))
	if len(evs) != 1 || evs[0].Cols != 30 || evs[0].PxHeight != 100 || evs[0].Text != "" || evs[0].Seq != 5 {
		t.Fatalf("resize = %+v", evs)
	}
}

// Which errors turn the leg away for good: a non-retryable one, except
// those after which the relay serves a new leg.
func TestErrorFinal(t *testing.T) {
	for _, c := range []struct {
		code      attachwire.ErrorCode
		retryable bool
		final     bool
	}{
		{attachwire.CodeAuth, false, true},
		{attachwire.CodePenDenied, false, true},
		{attachwire.CodeRateLimited, true, false},
		{attachwire.CodeBackpressure, false, false},
		{attachwire.CodeRingMiss, false, false},
		{attachwire.CodeHostLost, false, false},
		{attachwire.CodeRelayRestarting, false, false},
	} {
		e := New(Options{SessionID: "s"})
		evs := apply(t, e, controlMsg(t, attachwire.ErrorControl{Code: c.code, Retryable: c.retryable}))
		if len(evs) != 1 || evs[0].Final != c.final {
			t.Errorf("%s retryable=%v: %+v, want final %v", c.code, c.retryable, evs, c.final)
		}
	}
}

// A relay that forgot the count while nothing was pending: the next input
// goes once more with the number it expects.
func TestAckBelowWithNothingPending(t *testing.T) {
	e := New(Options{SessionID: "s", ConnID: me, Driver: true})
	apply(t, e, snapshotMsg(t, 0, 1, screen(t, 1, 10, 2, "")))
	apply(t, e, controlMsg(t, attachwire.PenState{HolderConnID: me, PenGeneration: 1}))
	input(t, e, []byte("a"))
	input(t, e, []byte("b"))
	e.Ack(2)
	if got := inputSeqs(t, input(t, e, []byte("c"))); !slices.Equal(got, []uint64{3}) {
		t.Fatalf("c went as %v", got)
	}
	var sent []attachwire.Frame
	for _, ev := range e.Ack(0) {
		sent = append(sent, ev.Frame)
	}
	if got := inputSeqs(t, sent); !slices.Equal(got, []uint64{1}) {
		t.Fatalf("after the relay forgot: %v, want [1]", got)
	}
	if got := inputSeqs(t, input(t, e, []byte("d"))); !slices.Equal(got, []uint64{2}) {
		t.Fatalf("d went as %v, want [2]", got)
	}
}

// Viewport advertises any leg's size (the relay keeps a non-holder's for
// when it takes the pen), and nothing no screen could have.
func TestViewport(t *testing.T) {
	e := New(Options{SessionID: "s", ConnID: me})
	f, ok := e.Viewport(100, 30)
	r, err := attachwire.DecodeResize(f.Payload)
	if !ok || f.Type != attachwire.TypeResize || err != nil || r.Cols != 100 || r.Rows != 30 {
		t.Errorf("Viewport(100, 30) = %+v, %v (%v)", r, ok, err)
	}
	for _, sz := range [][2]int{{0, 30}, {100, -1}, {attachwire.MaxScreenDim + 1, 30}} {
		if _, ok := e.Viewport(sz[0], sz[1]); ok {
			t.Errorf("Viewport(%d, %d) gave a frame", sz[0], sz[1])
		}
	}
}

// A ping is the ping control; the relay's pong changes nothing.
func TestPingAndPong(t *testing.T) {
	e := New(Options{SessionID: "s"})
	c, err := attachwire.DecodeControl(e.Ping().Payload)
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := c.(attachwire.Ping); !ok {
		t.Fatalf("Ping() is a %T", c)
	}
	pong, err := attachwire.ControlFrame(attachwire.Pong{})
	if err != nil {
		t.Fatal(err)
	}
	if evs, err := e.ApplyFrame(pong); err != nil || len(evs) != 0 {
		t.Fatalf("a pong gave %v, %v; want nothing", evs, err)
	}
}

// A Resize is taken within the viewer's bounds, whatever it asks for: a
// viewer allocates the screen it is told of.
func TestResizeIsBounded(t *testing.T) {
	for _, tc := range []struct {
		cols, rows         uint32
		wantCols, wantRows int
	}{
		{80, 24, 80, 24},
		{4096, 256, 4096, 256},
		{65535, 65535, 4096, 256},
		{1000, 65535, 1000, 1048},
		{65535, 10, 4096, 10},
	} {
		e := New(Options{SessionID: "s"})
		apply(t, e, snapshotMsg(t, 1, 0, screen(t, 0, 8, 2, "hi")))
		f, err := attachwire.Resize{Cols: tc.cols, Rows: tc.rows}.Frame(2, 0)
		if err != nil {
			t.Fatal(err)
		}
		evs, err := e.ApplyFrame(f)
		if err != nil || len(evs) != 1 || evs[0].Kind != Size {
			t.Fatalf("%dx%d: %v, %v", tc.cols, tc.rows, evs, err)
		}
		if evs[0].Cols != tc.wantCols || evs[0].Rows != tc.wantRows || evs[0].Cols*evs[0].Rows > MaxScreenCells {
			t.Errorf("%dx%d became %dx%d, want %dx%d", tc.cols, tc.rows, evs[0].Cols, evs[0].Rows, tc.wantCols, tc.wantRows)
		}
	}
}

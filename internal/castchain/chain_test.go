package castchain_test

import (
	"bytes"
	"crypto/ed25519"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/internal/cast"
	"github.com/ptyhost/ptyhost/internal/castchain"
)

// testKey is a fixed key so failures replay.
func testKey(seed byte) ed25519.PrivateKey {
	return ed25519.NewKeyFromSeed(bytes.Repeat([]byte{seed}, ed25519.SeedSize))
}

// clock is a Now that advances a second a call.
func clock() func() time.Time {
	t := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	return func() time.Time { t = t.Add(time.Second); return t }
}

// recording writes a chained v3 cast of n output events with a checkpoint
// every `every` lines, signed by key (nil: unsigned).
func recording(t testing.TB, n, every int, key ed25519.PrivateKey) []byte {
	t.Helper()
	var buf bytes.Buffer
	cw := castchain.NewWriter(&buf, castchain.Options{Key: key, EveryLines: every, Now: clock(), Every: time.Hour})
	w, err := cast.NewWriter(cw, cast.Header{Version: 3, Width: 80, Height: 24, Timestamp: 1767323045})
	if err != nil {
		t.Fatal(err)
	}
	for i := range n {
		if i == n/2 {
			w.Comment("input by alice")
		}
		w.Output(uint64(i)*1000, []byte("line "+strings.Repeat("x", i%7)+"\r\n"))
		w.Flush()
	}
	if err := w.Close(uint64(n) * 1000); err != nil {
		t.Fatal(err)
	}
	if err := cw.Close(); err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func lines(b []byte) []string { return strings.SplitAfter(string(b), "\n") }

func join(ls []string) []byte { return []byte(strings.Join(ls, "")) }

// eventLine returns the index of the i-th output event line.
func eventLine(t testing.TB, ls []string, i int) int {
	t.Helper()
	for j, l := range ls {
		if strings.HasPrefix(l, "[") {
			if i == 0 {
				return j
			}
			i--
		}
	}
	t.Fatalf("no event %d", i)
	return 0
}

func verify(t testing.TB, b []byte, key ed25519.PublicKey) *castchain.Report {
	t.Helper()
	rep, err := castchain.Verify(bytes.NewReader(b), castchain.VerifyOptions{Key: key})
	if err != nil {
		t.Fatal(err)
	}
	return rep
}

func TestVerifyIntact(t *testing.T) {
	key := testKey(1)
	pub := key.Public().(ed25519.PublicKey)
	for _, every := range []int{1, 3, 256} {
		b := recording(t, 20, every, key)
		rep := verify(t, b, pub)
		if !rep.Intact() || !rep.Closed || !rep.Trusted || !rep.Signer.Equal(pub) {
			t.Fatalf("every %d: report %+v", every, rep)
		}
		if rep.Events != 22 { // header, 20 events, the comment
			t.Errorf("every %d: events %d, want 22", every, rep.Events)
		}
		if rep.Start.Unix() != 1767323045 || rep.End.IsZero() {
			t.Errorf("span %v .. %v", rep.Start, rep.End)
		}
		// A stock reader still reads it: the chain lines are comments.
		r, err := cast.NewReader(bytes.NewReader(b))
		if err != nil {
			t.Fatal(err)
		}
		n := 0
		for {
			if _, err := r.Next(); err != nil {
				break
			}
			n++
		}
		if n != 20 {
			t.Errorf("cast reader saw %d events, want 20", n)
		}
	}
}

func TestVerifyUnsigned(t *testing.T) {
	b := recording(t, 10, 4, nil)
	if rep := verify(t, b, nil); !rep.Intact() || rep.Signer != nil || rep.Trusted {
		t.Fatalf("unsigned chain, no key: %+v", rep)
	}
	rep := verify(t, b, testKey(1).Public().(ed25519.PublicKey))
	if rep.Intact() || rep.Problems[0].Kind != castchain.Unsigned {
		t.Fatalf("unsigned chain, key required: %+v", rep.Problems)
	}
}

func TestVerifyTampered(t *testing.T) {
	key := testKey(1)
	pub := key.Public().(ed25519.PublicKey)
	orig := lines(recording(t, 20, 8, key))
	tests := []struct {
		name   string
		edit   func(ls []string) ([]string, int) // returns the file line (1-based) to blame
		key    ed25519.PublicKey
		kind   castchain.ProblemKind
		intact bool
	}{
		{name: "changed byte", kind: castchain.Changed, edit: func(ls []string) ([]string, int) {
			i := eventLine(t, ls, 5)
			ls[i] = strings.Replace(ls[i], "line", "lime", 1)
			return ls, i + 1
		}},
		{name: "changed header", kind: castchain.Changed, edit: func(ls []string) ([]string, int) {
			ls[0] = strings.Replace(ls[0], "80", "81", 1)
			return ls, 1
		}},
		{name: "removed event", kind: castchain.Removed, edit: func(ls []string) ([]string, int) {
			i := eventLine(t, ls, 3)
			return append(ls[:i:i], ls[i+1:]...), i + 1 // the line that now follows the gap
		}},
		{name: "inserted event", kind: castchain.Inserted, edit: func(ls []string) ([]string, int) {
			i := eventLine(t, ls, 3)
			return append(ls[:i:i], append([]string{"[0.000001, \"o\", \"evil\"]\n"}, ls[i:]...)...), i + 1
		}},
		{name: "reordered pair", kind: castchain.Reordered, edit: func(ls []string) ([]string, int) {
			i := eventLine(t, ls, 2)
			ls[i], ls[i+1] = ls[i+1], ls[i]
			return ls, i + 1
		}},
		{name: "truncated after checkpoint", kind: castchain.Truncated, edit: func(ls []string) ([]string, int) {
			n := len(ls) - 4 // drop the closing line and two events before it
			return ls[:n], n
		}},
		{name: "truncated mid-line", kind: castchain.Truncated, edit: func(ls []string) ([]string, int) {
			n := len(ls) - 3
			ls = ls[:n]
			ls[n-1] = ls[n-1][:5]
			return ls, n
		}},
		{name: "closing line removed", kind: castchain.Truncated, edit: func(ls []string) ([]string, int) {
			n := len(ls) - 2 // the last element is the empty string after the final newline
			return ls[:n], n
		}},
		{name: "appended after close", kind: castchain.Appended, edit: func(ls []string) ([]string, int) {
			return append(ls, "[0.1, \"o\", \"more\"]\n"), len(ls)
		}},
		{name: "checkpoint removed", kind: castchain.Removed, edit: func(ls []string) ([]string, int) {
			for i, l := range ls {
				if strings.HasPrefix(l, castchain.Prefix) {
					return append(ls[:i:i], ls[i+1:]...), i + 1 + 8 // the next checkpoint
				}
			}
			t.Fatal("no checkpoint")
			return nil, 0
		}},
		{name: "forged by another key", kind: castchain.WrongKey, key: pub, edit: func(ls []string) ([]string, int) {
			forged := lines(recording(t, 20, 8, testKey(2)))
			return forged, 9 // the first checkpoint, after the header and 7 events
		}},
		{name: "resigned checkpoint", kind: castchain.BadSignature, edit: func(ls []string) ([]string, int) {
			for i, l := range ls {
				if strings.HasPrefix(l, castchain.Prefix) {
					ls[i] = strings.Replace(l, "time=2026", "time=2025", 1)
					return ls, i + 1
				}
			}
			return nil, 0
		}},
		{name: "garbled checkpoint", kind: castchain.BadChainLine, edit: func(ls []string) ([]string, int) {
			for i, l := range ls {
				if strings.HasPrefix(l, castchain.Prefix) {
					ls[i] = strings.Replace(l, "hash=", "hash=x", 1)
					return ls, i + 1
				}
			}
			return nil, 0
		}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ls, line := tc.edit(append([]string(nil), orig...))
			rep := verify(t, join(ls), tc.key)
			if rep.Intact() {
				t.Fatalf("reported intact")
			}
			p := rep.Problems[0]
			if p.Kind != tc.kind || p.Line != line {
				t.Errorf("first problem %v, want %s at line %d (all: %v)", p, tc.kind, line, rep.Problems)
			}
		})
	}
}

func TestVerifyTruncationCountsUnproven(t *testing.T) {
	ls := lines(recording(t, 20, 8, testKey(1)))
	// Lines: header, 8 events, cp, 2 events, comment, 6 events, cp, 4 events,
	// the end, "". Keep up to two events after the second checkpoint.
	var cps []int
	for i, l := range ls {
		if strings.HasPrefix(l, castchain.Prefix) {
			cps = append(cps, i)
		}
	}
	cut := ls[:cps[1]+3]
	rep := verify(t, join(cut), nil)
	if rep.Unproven != 2 || rep.Closed {
		t.Fatalf("unproven %d closed %v, want 2 false: %v", rep.Unproven, rep.Closed, rep.Problems)
	}
	if !strings.Contains(rep.Problems[0].Msg, "2 chained lines after the last checkpoint are unproven") {
		t.Errorf("message %q", rep.Problems[0].Msg)
	}
}

func TestVerifyNotChained(t *testing.T) {
	for _, in := range []string{"", "{\"version\":3,\"term\":{\"cols\":80,\"rows\":24}}\n[0.1, \"o\", \"x\"]\n"} {
		rep := verify(t, []byte(in), nil)
		if rep.Intact() || rep.Problems[0].Kind != castchain.NoChain {
			t.Errorf("%q: %v", in, rep.Problems)
		}
	}
}

func TestVerifyReportsFailedRecording(t *testing.T) {
	var buf bytes.Buffer
	cw := castchain.NewWriter(&buf, castchain.Options{Key: testKey(1)})
	w, _ := cast.NewWriter(cw, cast.Header{Version: 3, Width: 80, Height: 24})
	w.Output(1, []byte("x"))
	w.Comment("ptyhost-record failed: queue overflow")
	w.Close(2)
	cw.Close()
	rep := verify(t, buf.Bytes(), nil)
	if !rep.Intact() || rep.Failed != "ptyhost-record failed: queue overflow" {
		t.Fatalf("%+v", rep)
	}
}

// TestWriterSplitsAnywhere: the chain is the same however the bytes
// reach the Writer.
func TestWriterSplitsAnywhere(t *testing.T) {
	src := []byte("{\"version\":3,\"term\":{\"cols\":80,\"rows\":24}}\n[0.1, \"o\", \"a\"]\n# note\n[0.2, \"o\", \"b\"]\n")
	write := func(chunks [][]byte) []byte {
		var buf bytes.Buffer
		cw := castchain.NewWriter(&buf, castchain.Options{Key: testKey(1), EveryLines: 2, Now: clock()})
		for _, c := range chunks {
			if _, err := cw.Write(c); err != nil {
				t.Fatal(err)
			}
		}
		cw.Close()
		return buf.Bytes()
	}
	whole := write([][]byte{src})
	for i := range src {
		if got := write([][]byte{src[:i], src[i:]}); !bytes.Equal(got, whole) {
			t.Fatalf("split at %d:\n%s\nwant\n%s", i, got, whole)
		}
	}
	var bytewise [][]byte
	for i := range src {
		bytewise = append(bytewise, src[i:i+1])
	}
	if got := write(bytewise); !bytes.Equal(got, whole) {
		t.Fatalf("byte by byte:\n%s", got)
	}
	if rep := verify(t, whole, nil); !rep.Intact() {
		t.Fatal(rep.Problems)
	}
}

func TestCheckpointWaitsForLineEnd(t *testing.T) {
	var buf bytes.Buffer
	cw := castchain.NewWriter(&buf, castchain.Options{Now: clock(), Every: time.Hour})
	cw.Write([]byte("{\"version\":3}\n[0.1, \"o\""))
	if err := cw.Checkpoint(); err != nil {
		t.Fatal(err)
	}
	if strings.Contains(buf.String(), castchain.Prefix) {
		t.Fatal("checkpoint written mid-line")
	}
	cw.Write([]byte(", \"x\"]\n"))
	if !strings.HasSuffix(buf.String(), "\n") || !strings.Contains(buf.String(), "cp seq=2 from=0") {
		t.Fatalf("no checkpoint after the line ended:\n%s", buf.String())
	}
	before := buf.Len()
	cw.Checkpoint() // nothing new: nothing written
	if buf.Len() != before {
		t.Fatal("empty checkpoint written")
	}
}

func TestWriterRefusesAChainPrefixedLine(t *testing.T) {
	for _, chunks := range [][]string{
		{"{}\n" + castchain.Prefix + "cp seq=1\n"},
		{"{}\n# ptyhost-ch", "ain v1 end\n"},
	} {
		var buf bytes.Buffer
		cw := castchain.NewWriter(&buf, castchain.Options{})
		var err error
		for _, c := range chunks {
			if _, err = cw.Write([]byte(c)); err != nil {
				break
			}
		}
		if err != castchain.ErrChainPrefix {
			t.Errorf("%q: error %v, want ErrChainPrefix", chunks, err)
		}
		if strings.Contains(buf.String(), castchain.Prefix) {
			t.Errorf("%q: the prefix went through: %q", chunks, buf.String())
		}
	}
	// A line that only starts like it is fine.
	var buf bytes.Buffer
	cw := castchain.NewWriter(&buf, castchain.Options{})
	if _, err := cw.Write([]byte("# ptyhost-chain v2 x\n# ptyhost\n")); err != nil {
		t.Fatal(err)
	}
}

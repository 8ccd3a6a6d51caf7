package engine

import (
	"errors"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
)

// sealedHistory is a sealed room's history as the relay serves it: a
// key frame of epoch 5 (seq 0, at seq 1), Output frames 2 through 4
// and a Resize at 5, sealed under k for room "s".
func sealedHistory(t *testing.T, k *seal.Key) []attachwire.Frame {
	t.Helper()
	r := seal.NewRoom(k, "s")
	key, err := attachwire.DecodeFrame(snapshotMsg(t, 0, 1, screen(t, 5, 20, 2, "key frame")))
	if err != nil {
		t.Fatal(err)
	}
	plain := []attachwire.Frame{key,
		attachwire.NewOutputFrame(2, 0, []byte("alpha ")),
		attachwire.NewOutputFrame(3, 0, []byte("the needle ")),
		attachwire.NewOutputFrame(4, 0, []byte("omega")),
	}
	var out []attachwire.Frame
	for _, f := range plain {
		sf, err := r.Seal(f, 5)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, sf)
	}
	rs, err := attachwire.Resize{Cols: 30, Rows: 3}.Frame(5, 0)
	if err != nil {
		t.Fatal(err)
	}
	return append(out, rs)
}

// TestHistoryOpener: the frames of a sealed history open with the room
// key (the Output under the key frame's epoch, whatever the opener was
// given), and what opens searches as a plain history would; a frame
// altered on the way fails and is counted, the others still open, and
// no match spans the frame skipped.
func TestHistoryOpener(t *testing.T) {
	k, _ := seal.GenerateKey()
	frames := sealedHistory(t, k)
	frames[2].Payload[len(frames[2].Payload)-1] ^= 1 // "the needle ", in its tag

	o, err := NewHistoryOpener(k, "s", 0, k.ID().String())
	if err != nil {
		t.Fatal(err)
	}
	s := NewSearcher("alpha omega")
	needle, omega := NewSearcher("NEEDLE"), NewSearcher("Omega")
	var got, gotNeedle []Match
	var opened []string
	for _, f := range frames {
		of, ok := o.Open(f)
		if !ok {
			s.Gap()
			continue
		}
		if of.Type == attachwire.TypeOutput {
			opened = append(opened, string(of.Payload))
		}
		got = omega.Feed(of, got)
		gotNeedle = needle.Feed(of, gotNeedle)
		if ms := s.Feed(of, nil); len(ms) > 0 {
			t.Errorf("a match across the frame that failed: %+v", ms)
		}
	}
	if o.Failed() != 1 {
		t.Errorf("%d frames failed to open, want 1", o.Failed())
	}
	if len(opened) != 2 || opened[0] != "alpha " || opened[1] != "omega" {
		t.Errorf("opened %q", opened)
	}
	if len(got) != 1 || got[0].Seq != 4 || len(gotNeedle) != 0 {
		t.Errorf("found %+v and, in the frame that failed, %+v", got, gotNeedle)
	}
}

// TestHistoryOpenerKeys: a history under another key than the link's,
// a sealed history without a key and a plain one with a key are refused
// with a sentence; and were a relay to state the key the page holds over
// frames sealed under another, every sealed frame fails and none opens.
func TestHistoryOpenerKeys(t *testing.T) {
	k, _ := seal.GenerateKey()
	other, _ := seal.GenerateKey()
	for _, tc := range []struct {
		name   string
		key    *seal.Key
		sealed string
		want   string
	}{
		{"another key", k, other.ID().String(), msgHistoryOtherKey},
		{"no key", nil, k.ID().String(), msgHistoryNeedsKey},
		{"plain history", k, "", msgHistoryPlainRoom},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := NewHistoryOpener(tc.key, "s", 5, tc.sealed)
			var ke *HistoryKeyError
			if !errors.As(err, &ke) || ke.Message != tc.want {
				t.Errorf("got %v, want %q", err, tc.want)
			}
		})
	}

	o, err := NewHistoryOpener(k, "s", 5, k.ID().String())
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range sealedHistory(t, other) {
		if _, ok := o.Open(f); ok && seal.Sealed(f.Type) {
			t.Errorf("a %v frame sealed under another key opened", f.Type)
		}
	}
	if o.Failed() != 4 {
		t.Errorf("%d frames failed, want 4", o.Failed())
	}

	plain, err := NewHistoryOpener(nil, "s", 5, "")
	if err != nil {
		t.Fatal(err)
	}
	f := attachwire.NewOutputFrame(1, 0, []byte("plain"))
	if got, ok := plain.Open(f); !ok || string(got.Payload) != "plain" {
		t.Errorf("a plain history's frame: %q %v", got.Payload, ok)
	}
}

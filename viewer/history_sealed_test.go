package viewer_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/viewer"
	"github.com/ptyhost/ptyhost/web/engine"
)

// alterer is a transport that flips the last payload byte (in a sealed
// frame, its tag) of the history frame at seq on its way from the relay,
// as a relay or a proxy could. seq 0: none.
type alterer struct{ seq atomic.Uint64 }

func (a *alterer) RoundTrip(req *http.Request) (*http.Response, error) {
	resp, err := oneShot.Transport.RoundTrip(req)
	seq := a.seq.Load()
	if err != nil || seq == 0 || resp.StatusCode != http.StatusOK || !strings.HasSuffix(req.URL.Path, "/history/frames") {
		return resp, err
	}
	body, err := io.ReadAll(resp.Body)
	resp.Body.Close()
	if err != nil {
		return nil, err
	}
	var out bytes.Buffer
	r, w := attachwire.NewFileReader(bytes.NewReader(body)), attachwire.NewFileWriter(&out)
	for {
		f, err := r.ReadFrame()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
		if f.Seq == seq && len(f.Payload) > 0 {
			f.Payload = append([]byte(nil), f.Payload...)
			f.Payload[len(f.Payload)-1] ^= 1
		}
		if err := w.WriteFrame(f); err != nil {
			return nil, err
		}
	}
	resp.Body = io.NopCloser(&out)
	resp.ContentLength = int64(out.Len())
	resp.Header.Del("Content-Length")
	return resp, nil
}

func newSealKey(t testing.TB) *seal.Key {
	t.Helper()
	k, err := seal.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// readAll reads the history from first through head with Frames.
func readAll(h *viewer.History, first, head uint64) ([]attachwire.Frame, error) {
	var all []attachwire.Frame
	for next := first; next <= head; {
		frames, nx, err := h.Frames(context.Background(), next, head)
		if err != nil {
			return nil, err
		}
		if nx <= next {
			return nil, fmt.Errorf("no progress at seq %d", next)
		}
		all, next = append(all, frames...), nx
	}
	return all, nil
}

// TestHistorySealed: a sealed room's history, which the relay holds as
// the host sealed it, opens with the room key. The screen rebuilt at a
// seq equals the host's there; Frames returns the frames opened, their
// text readable; a frame altered on the way fails a read or a rewind,
// naming its seq; a key that is not the room's reads nothing of it, and
// without one the frames come sealed and no screen is rebuilt.
func TestHistorySealed(t *testing.T) {
	s := historyRelay(t, 0)
	key := newSealKey(t)
	host := newSealedHost(t, s, 3, 40, 8, key)
	h := newHistory(s, t)
	h.Key = key
	// The snapshot the bind asks for is the first key frame.
	testkit.Eventually(t, "the history's first key frame", func() bool {
		ix, err := h.Index(context.Background())
		return err == nil && len(ix.Keyframes) >= 1
	})
	// Three bursts past KeyframeBytes, so the rewinds start from sealed
	// key frames beside the stream too.
	points := printBursts(t, h, host, 3, 100, 37, func(i int) []byte {
		return fmt.Appendf(nil, "\x1b[3%dmsealed line %d\x1b[0m of the session\r\n", i%8, i)
	})
	_, head := host.screen()
	ix := waitHistoryHead(t, h, head)
	if ix.Sealed != key.ID().String() || ix.Epoch != 3 {
		t.Fatalf("index states key %q epoch %d, want %q and 3", ix.Sealed, ix.Epoch, key.ID())
	}
	for _, p := range points {
		got, err := h.ScreenAt(context.Background(), p.seq)
		if err != nil {
			t.Fatalf("seq %d: %v", p.seq, err)
		}
		if d := screenDiff(p.scr, got); d != "" {
			t.Errorf("screen at seq %d differs from the host's: %s", p.seq, d)
		}
	}

	frames, err := readAll(h, ix.First, head)
	if err != nil {
		t.Fatal(err)
	}
	var text bytes.Buffer
	needle := uint64(0)
	for i, f := range frames {
		if want := ix.First + uint64(i); f.Seq != want {
			t.Fatalf("frame %d has seq %d, want %d", i, f.Seq, want)
		}
		if f.Type == attachwire.TypeOutput {
			text.Write(f.Payload)
			if bytes.Contains(f.Payload, []byte("sealed line 250\x1b")) {
				needle = f.Seq
			}
		}
	}
	for _, i := range []int{0, 150, 299} {
		if line := fmt.Sprintf("sealed line %d\x1b[0m of the session", i); !strings.Contains(text.String(), line) {
			t.Errorf("the opened frames do not hold %q", line)
		}
	}
	if needle == 0 {
		t.Fatal("no frame holds line 250")
	}

	// Without the key the frames come sealed: none of the text shows, and
	// no screen is rebuilt.
	plain := newHistory(s, t)
	var ke *engine.HistoryKeyError
	if _, err := plain.ScreenAt(context.Background(), head); !errors.As(err, &ke) || !strings.Contains(ke.Message, "carries its key") {
		t.Errorf("rewinding without the key: %v", err)
	}
	sealed, err := readAll(plain, ix.First, head)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range sealed {
		if bytes.Contains(f.Payload, []byte("sealed line")) {
			t.Fatalf("frame seq %d without the key holds the text: %q", f.Seq, f.Payload)
		}
	}

	// One frame altered on the way: the read that holds it fails, naming it.
	alter := &alterer{}
	h.HTTPClient = &http.Client{Transport: alter}
	alter.seq.Store(needle)
	_, _, err = h.Frames(context.Background(), needle-1, needle+1)
	if !errors.Is(err, seal.ErrOpen) || !strings.Contains(err.Error(), fmt.Sprintf("seq %d:", needle)) {
		t.Errorf("reading an altered frame at seq %d: %v", needle, err)
	}
	if _, err := h.ScreenAt(context.Background(), needle); !errors.Is(err, seal.ErrOpen) || !strings.Contains(err.Error(), fmt.Sprintf("seq %d:", needle)) {
		t.Errorf("rewinding over an altered frame at seq %d: %v", needle, err)
	}
	if _, _, err := h.Frames(context.Background(), needle+1, needle+2); err != nil {
		t.Errorf("reading past the altered frame: %v", err)
	}
	alter.seq.Store(0)

	other := newHistory(s, t)
	other.Key = newSealKey(t)
	_, _, err = other.Frames(context.Background(), ix.First, head)
	if !errors.As(err, &ke) || !strings.Contains(ke.Message, "another key") || !strings.Contains(err.Error(), ke.Message) {
		t.Errorf("reading with another key: %v", err)
	}
	_, err = other.ScreenAt(context.Background(), head)
	if !errors.As(err, &ke) || !strings.Contains(ke.Message, "another key") {
		t.Errorf("rewinding with another key: %v", err)
	}
}

// TestHistoryPlainWithKey: a viewer holding a key reads and rewinds no
// plain history, which a relay could have made up.
func TestHistoryPlainWithKey(t *testing.T) {
	s := historyRelay(t, 0)
	host := newHost(t, s, 1, 40, 8)
	host.output([]byte("plain text\r\n"))
	h := newHistory(s, t)
	ix := waitHistoryHead(t, h, 1)
	h.Key = newSealKey(t)
	_, _, err := h.Frames(context.Background(), ix.First, ix.Head)
	var ke *engine.HistoryKeyError
	if !errors.As(err, &ke) || !strings.Contains(ke.Message, "not end-to-end encrypted") {
		t.Errorf("reading a plain history with a key: %v", err)
	}
	_, err = h.ScreenAt(context.Background(), ix.Head)
	if !errors.As(err, &ke) || !strings.Contains(ke.Message, "not end-to-end encrypted") {
		t.Errorf("rewinding a plain history with a key: %v", err)
	}
}

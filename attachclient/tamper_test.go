package attachclient_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/viewer"
)

// tamperer is a relay's stand-in between viewers and the relay: it
// passes every message on, and what the relay sends through rewrite,
// which may change, hold, drop or add frames, as a relay that does not
// hold the key could.
type tamperer struct {
	srv     *httptest.Server
	mu      sync.Mutex
	rewrite func(attachwire.Frame) []attachwire.Frame
	lastOut attachwire.Frame // the last Output frame the relay sent
}

func newTamperer(t testing.TB, relayURL string) *tamperer {
	tp := &tamperer{}
	tp.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		down, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{attachwire.Subprotocol}})
		if err != nil {
			return
		}
		defer down.CloseNow()
		ctx, cancel := context.WithCancel(r.Context())
		defer cancel()
		up, _, err := websocket.Dial(ctx, relayURL+r.URL.Path, &websocket.DialOptions{
			Subprotocols: []string{attachwire.Subprotocol},
			HTTPHeader:   http.Header{"Authorization": r.Header.Values("Authorization")},
		})
		if err != nil {
			return
		}
		defer up.CloseNow()
		down.SetReadLimit(16 << 20)
		up.SetReadLimit(16 << 20)
		go func() {
			defer cancel()
			for {
				typ, b, err := down.Read(ctx)
				if err != nil || up.Write(ctx, typ, b) != nil {
					return
				}
			}
		}()
		for {
			typ, b, err := up.Read(ctx)
			if err != nil {
				return
			}
			f, derr := attachwire.DecodeFrame(b)
			tp.mu.Lock()
			rw := tp.rewrite
			if derr == nil && f.Type == attachwire.TypeOutput {
				tp.lastOut = attachwire.Frame{Type: f.Type, Seq: f.Seq, RelTime: f.RelTime, Payload: append([]byte(nil), f.Payload...)}
			}
			tp.mu.Unlock()
			if derr != nil || rw == nil {
				if down.Write(ctx, typ, b) != nil {
					return
				}
				continue
			}
			for _, g := range rw(f) {
				wire, _ := g.MarshalBinary()
				if down.Write(ctx, websocket.MessageBinary, wire) != nil {
					return
				}
			}
		}
	}))
	t.Cleanup(tp.srv.Close)
	return tp
}

// last returns the last Output frame the relay sent.
func (tp *tamperer) last() attachwire.Frame {
	tp.mu.Lock()
	defer tp.mu.Unlock()
	return tp.lastOut
}

func (tp *tamperer) set(rw func(attachwire.Frame) []attachwire.Frame) {
	tp.mu.Lock()
	tp.rewrite = rw
	tp.mu.Unlock()
}

func (tp *tamperer) roomURL(room string) string {
	return "ws://" + strings.TrimPrefix(tp.srv.URL, "http://") + "/v1/rooms/" + room
}

// onceOnOutput returns a rewrite that hands the first Output frame after
// it is set to act, and passes everything else.
func onceOnOutput(act func(attachwire.Frame) []attachwire.Frame) func(attachwire.Frame) []attachwire.Frame {
	done := false
	return func(f attachwire.Frame) []attachwire.Frame {
		if done || f.Type != attachwire.TypeOutput {
			return []attachwire.Frame{f}
		}
		done = true
		return act(f)
	}
}

// TestSealedTamperingIsDetected: a relay (the tamperer) that flips a bit
// of a sealed frame, swaps two frames, replays an old frame at a new seq
// or splices in a frame of another room: each time the viewer drops the
// frame, tells its person in one line, asks for a snapshot, and comes
// back to the host's screen; what the tamperer put in is never drawn.
func TestSealedTamperingIsDetected(t *testing.T) {
	r := newRig(t, "lines", fastRelay())
	k, _ := seal.GenerateKey()
	cfg := r.config()
	cfg.Key = k
	r.start(t, cfg)
	srv := r.srv.Load()
	tp := newTamperer(t, strings.TrimSuffix(srv.URL, "/"))
	d, err := dialSealed(t, srv, r.room, "dan", attachwire.RoleDriver, k)
	if err != nil {
		t.Fatal(err)
	}
	testkit.Eventually(t, "the pen", func() bool { return d.Pen().Mine })
	other := seal.NewRoom(k, "another-room")

	cases := []struct {
		name string
		rw   func() func(attachwire.Frame) []attachwire.Frame
	}{
		{"a flipped bit", func() func(attachwire.Frame) []attachwire.Frame {
			return onceOnOutput(func(f attachwire.Frame) []attachwire.Frame {
				f.Payload = append([]byte(nil), f.Payload...)
				f.Payload[len(f.Payload)-1] ^= 1
				return []attachwire.Frame{f}
			})
		}},
		{"two frames swapped", func() func(attachwire.Frame) []attachwire.Frame {
			var held *attachwire.Frame
			swapped := false
			return func(f attachwire.Frame) []attachwire.Frame {
				switch {
				case swapped || f.Type != attachwire.TypeOutput:
					return []attachwire.Frame{f}
				case held == nil:
					held = &f
					return nil
				}
				a, b := *held, f
				a.Seq, b.Seq = b.Seq, a.Seq
				swapped = true
				return []attachwire.Frame{b, a}
			}
		}},
		{"an old frame at a new seq", func() func(attachwire.Frame) []attachwire.Frame {
			old := tp.last()
			if old.Seq == 0 {
				t.Fatal("no Output frame was seen to replay")
			}
			return onceOnOutput(func(f attachwire.Frame) []attachwire.Frame {
				o := old
				o.Seq = f.Seq
				return []attachwire.Frame{o}
			})
		}},
		{"a frame from another room", func() func(attachwire.Frame) []attachwire.Frame {
			return onceOnOutput(func(f attachwire.Frame) []attachwire.Frame {
				s, err := other.Seal(attachwire.Frame{Type: attachwire.TypeOutput, Seq: f.Seq, Payload: []byte("SPLICED\r\n")}, r.epoch)
				if err != nil {
					panic(err)
				}
				return []attachwire.Frame{s}
			})
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			var mu sync.Mutex
			var notices []string
			var drawn strings.Builder
			v, err := viewer.Dial(context.Background(), viewer.Config{
				URL: tp.roomURL(r.room), Token: srv.ViewerToken(t, r.room, "vic"), Role: attachwire.RoleViewer, Key: k,
				BackoffMin: 10 * time.Millisecond, BackoffMax: 100 * time.Millisecond,
				OnEvent: func(ev viewer.Event) {
					mu.Lock()
					defer mu.Unlock()
					switch ev.Kind {
					case viewer.EventNotice:
						notices = append(notices, string(ev.Code)+": "+ev.Text)
					case viewer.EventOutput:
						drawn.Write(ev.Data)
					}
				},
			})
			if err != nil {
				t.Fatal(err)
			}
			defer v.Close()
			waitSameScreen(t, r, v, "the viewer's first screen")
			tp.set(tc.rw())
			defer tp.set(nil)
			for j := range 3 {
				if err := d.Input([]byte("line " + tc.name + " " + string(rune('a'+j)) + "\n")); err != nil {
					t.Fatal(err)
				}
				time.Sleep(20 * time.Millisecond)
			}
			testkit.EventuallyDescribe(t, "the integrity notice", func() bool {
				mu.Lock()
				defer mu.Unlock()
				for _, n := range notices {
					if n == "integrity: a frame failed its integrity check; resynchronising" {
						return true
					}
				}
				return false
			}, func() string { mu.Lock(); defer mu.Unlock(); return strings.Join(notices, "; ") })
			waitSameScreen(t, r, v, "the viewer back on the host's screen")
			mu.Lock()
			defer mu.Unlock()
			if strings.Contains(drawn.String(), "SPLICED") {
				t.Error("the spliced frame was drawn")
			}
			if s, _, _ := v.Mirror(); strings.Contains(screenText(s), "SPLICED") {
				t.Error("the spliced frame is on the screen")
			}
		})
	}

	// A relay that breaks every frame costs the leg, with a clear error.
	t.Run("every frame broken", func(t *testing.T) {
		tp.set(func(f attachwire.Frame) []attachwire.Frame {
			if seal.Sealed(f.Type) {
				f.Payload = append([]byte(nil), f.Payload...)
				f.Payload[len(f.Payload)-1] ^= 1
			}
			return []attachwire.Frame{f}
		})
		defer tp.set(nil)
		v, err := viewer.Dial(context.Background(), viewer.Config{
			URL: tp.roomURL(r.room), Token: srv.ViewerToken(t, r.room, "vic2"), Role: attachwire.RoleViewer, Key: k,
			BackoffMin: 10 * time.Millisecond, BackoffMax: 100 * time.Millisecond,
		})
		if err != nil {
			t.Fatal(err)
		}
		defer v.Close()
		for j := 0; j < 20; j++ {
			select {
			case <-v.Done():
				j = 20
			default:
				d.Input([]byte("more\n"))
				time.Sleep(50 * time.Millisecond)
			}
		}
		select {
		case <-v.Done():
		case <-time.After(30 * time.Second):
			t.Fatal("the leg did not end")
		}
		var ref *viewer.RefusedError
		if err := v.Err(); !errors.As(err, &ref) || ref.Code != "integrity" || !strings.Contains(ref.Message, "keep failing") {
			t.Fatalf("the leg ended with %v", err)
		}
		if _, _, ok := v.Mirror(); ok {
			t.Error("a screen was drawn from frames that never opened")
		}
	})
}

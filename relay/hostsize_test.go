package relay_test

import (
	"testing"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/relaytest"
)

// A host's terminal size is bounded as the pen holder's is: past the bound
// a Resize is the host's framing error, at the bound it reaches viewers.
func TestHostResizeBeyondTheBoundIsAFramingError(t *testing.T) {
	cfg := quiet()
	cfg.MaxCols, cfg.MaxRows = 500, 200
	for _, tc := range []struct {
		name       string
		cols, rows uint32
		ok         bool
	}{
		{"at the bound", 500, 200, true},
		{"cols past it", 501, 24, false},
		{"rows past it", 80, 201, false},
		{"both huge", 65535, 65535, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := relaytest.NewServer(t, cfg)
			h := dialHost(t, s, 1)
			h.snapshot("x")
			v := dialViewer(t, s, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer, attachwire.Subscribe{})
			h.seq++
			f, err := attachwire.Resize{Cols: tc.cols, Rows: tc.rows}.Frame(h.seq, h.seq)
			if err != nil {
				t.Fatal(err)
			}
			h.send(f)
			if !tc.ok {
				expectClosed(t, h.c, websocket.StatusProtocolError, attachwire.CodeFraming)
				return
			}
			for {
				got := relaytest.NextFrame(t, v)
				if got.Type != attachwire.TypeResize {
					continue
				}
				rs, err := attachwire.DecodeResize(got.Payload)
				if err != nil || rs.Cols != tc.cols || rs.Rows != tc.rows {
					t.Fatalf("viewer got %+v (%v), want %dx%d", rs, err, tc.cols, tc.rows)
				}
				return
			}
		})
	}
}

// A snapshot of a screen beyond the bound is not served: it becomes an
// empty Output frame, as any invalid snapshot does, and a joiner waits for
// the next one.
func TestHostSnapshotBeyondTheBoundIsDropped(t *testing.T) {
	cfg := quiet()
	cfg.MaxRows = 1
	s := relaytest.NewServer(t, cfg)
	h := dialHost(t, s, 1)
	tall := screen(1, "tall")
	tall.Rows = 2
	for range tall.Cols {
		tall.Primary = append(tall.Primary, attachwire.BlankCell())
	}
	h.seq++
	sn, err := attachwire.NewSnapshot(h.seq-1, tall)
	if err != nil {
		t.Fatal(err)
	}
	f, err := sn.Frame(h.seq, h.seq)
	if err != nil {
		t.Fatal(err)
	}
	h.send(f)
	h.output("next")
	v := dialViewer(t, s, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer, attachwire.Subscribe{})
	relaytest.ExpectControl[attachwire.SnapshotRequest](t, h.c)
	h.snapshot("ok")
	for {
		if got := relaytest.NextFrame(t, v); got.Type == attachwire.TypeSnapshot {
			if _, scr := snapshotOf(t, got); scr.Rows != 1 || text(scr) != "ok" {
				t.Fatalf("served a %d-row snapshot %q; want the 1-row one sent after the request", scr.Rows, text(scr))
			}
			return
		}
	}
}

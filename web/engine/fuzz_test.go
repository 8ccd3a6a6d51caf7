package engine

import (
	"bytes"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire/sanitize"

	"github.com/ptyhost/ptyhost/attachwire"
)

// FuzzApply feeds arbitrary relay messages to an Engine that holds the pen
// and has a base snapshot: Apply never panics, and whatever it writes
// passes the Driver sanitizer unchanged (it is already sanitized).
func FuzzApply(f *testing.F) {
	f.Add(outputMsg(f, 6, "\x1b]52;c;eA==\x07\x1b[6n"))
	f.Add(snapshotMsg(f, 0, 9, screen(f, 2, 4, 2, "ab")))
	f.Add(controlMsg(f, attachwire.PenRevoked{ConnID: me, PenGeneration: 9}))
	f.Add(controlMsg(f, attachwire.InputAck{AckInputSeq: 0}))
	f.Add([]byte{byte(attachwire.TypeResize), 7, 0, 0x80, 0x01, 1, 0, 0})
	f.Fuzz(func(t *testing.T, msg []byte) {
		e := New(Options{SessionID: "s", ConnID: me, Driver: true})
		apply(t, e, snapshotMsg(t, 0, 5, screen(t, 1, 8, 2, "x")))
		apply(t, e, controlMsg(t, attachwire.PenState{HolderConnID: me, PenGeneration: 1}))
		input(t, e, []byte("k"))
		evs, err := e.Apply(msg)
		if err != nil {
			return
		}
		for _, ev := range evs {
			if ev.Kind == Size && (ev.Cols <= 0 || ev.Rows <= 0) {
				t.Fatalf("size %dx%d", ev.Cols, ev.Rows)
			}
		}
		out := []byte(written(evs))
		again := sanitize.New(sanitize.Options{Profile: sanitize.Driver})
		again.SetSize(e.cols, e.rows)
		if got := again.Append(nil, out); e.Holding() && !bytes.Equal(got, out) {
			t.Fatalf("written %q changes under the Driver sanitizer: %q", out, got)
		}
	})
}

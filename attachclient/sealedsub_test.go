package attachclient

import (
	"context"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/sanitize"
	"github.com/ptyhost/ptyhost/attachwire/seal"
)

// TestSealedSubRecycle: a sealing cursor seals into a buffer only once the
// pump has sent the frame that held it, never into one it was told to
// keep, and keeps at most maxFree for reuse.
func TestSealedSubRecycle(t *testing.T) {
	k, err := seal.GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	ss := &sealedSession{session: "s", epoch: 1}
	ss.rekey(k)
	data := make([]byte, 64*16)
	for i := range data {
		data[i] = 'a' + byte(i/64)
	}
	sub := &sealedSub{InteractiveSubscription: &chunkSub{data: data, size: 64}, s: ss, san: sanitize.New(sanitize.Options{Profile: sanitize.Driver})}
	next := func() attachwire.Frame {
		t.Helper()
		f, err := sub.Next(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		return f
	}
	opens := func(f attachwire.Frame, want byte) {
		t.Helper()
		o, err := ss.room.Load().Open(f, 1)
		if err != nil || len(o.Payload) != 64 || o.Payload[0] != want {
			t.Fatalf("frame %d opens to %q, %v; want 64 of %c", f.Seq, o.Payload, err, want)
		}
	}
	f1, f2 := next(), next()
	sub.recycle(1) // f2 read past the batch: not sent
	f3 := next()
	if &f3.Payload[0] != &f1.Payload[0] {
		t.Error("the sent frame's buffer was not reused")
	}
	opens(f2, 'b')
	opens(f3, 'c')
	sub.recycle(0)
	for range 10 {
		next()
	}
	sub.recycle(0)
	if len(sub.free) != maxFree || len(sub.lent) != 0 {
		t.Errorf("%d buffers kept, %d lent; want %d and 0", len(sub.free), len(sub.lent), maxFree)
	}
}

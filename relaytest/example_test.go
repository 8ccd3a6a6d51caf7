package relaytest_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
)

// A host streams a snapshot and some output; a viewer joining the room gets
// the snapshot, then the output, sanitized by the relay.
func Example() {
	t := &testing.T{} // in a test, use the test's own *testing.T
	s := relaytest.NewServer(t, relay.Config{})
	defer s.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()

	epoch := uint64(1)
	host := relaytest.MustDial(t, s.RoomURL("s1"), s.HostToken(t, "s1", epoch),
		attachwire.Subscribe{SessionID: "s1", AsRole: attachwire.RoleHost, Epoch: &epoch})
	defer host.WS.CloseNow()
	req := relaytest.ExpectControl[attachwire.SnapshotRequest](t, host)
	fmt.Println("host asked for a snapshot:", req.Reason)

	scr := &attachwire.Screen{Epoch: epoch, Cols: 2, Rows: 1, Primary: []attachwire.Cell{{Content: "h"}, {Content: "i"}}}
	sn, _ := attachwire.NewSnapshot(0, scr)
	f, _ := sn.Frame(1, 0)
	host.Send(ctx, f)
	host.Send(ctx, attachwire.NewOutputFrame(2, 10, []byte("!\x1b]52;c;c2VjcmV0\x07")))

	viewer := relaytest.MustDial(t, s.RoomURL("s1"), s.ViewerToken(t, "s1", "ann"),
		attachwire.Subscribe{SessionID: "s1", AsRole: attachwire.RoleViewer})
	defer viewer.WS.CloseNow()
	fmt.Println("viewer got", relaytest.NextFrame(t, viewer).Type)
	out := relaytest.NextFrame(t, viewer)
	fmt.Printf("then %s seq %d: %q\n", out.Type, out.Seq, out.Payload)
	// Output:
	// host asked for a snapshot: resync
	// viewer got Snapshot
	// then Output seq 2: "!"
}

package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/attachui"
	"github.com/ptyhost/ptyhost/viewer"
)

// What attach reads from the terminal while more than MaxPendingInput
// awaits the relay's ack waits for acks; none of it is dropped. Before,
// keys gave each read to Input and ignored its ErrInputFull, so a paste
// past the bound (1 MiB by default) reached the session with holes. The
// bound here is 1000 bytes and each read 4000, so every read is past it.
func TestAttachKeysWaitForAcksInsteadOfDropping(t *testing.T) {
	s, _, b := attachRelay(t)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	c, err := viewer.Dial(ctx, viewer.Config{
		URL: s.RoomURL(attachRoom), Token: s.DriverToken(t, attachRoom, "kim"), Role: attachwire.RoleDriver,
		Viewport: attachwire.Viewport{Cols: 80, Rows: 24}, MaxPendingInput: 1000,
	})
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	for !c.Pen().Mine {
		if ctx.Err() != nil {
			t.Fatal("watchdog: no pen")
		}
		time.Sleep(10 * time.Millisecond)
	}
	a := &attacher{disp: attachui.NewDisplay(io.Discard, c.Mirror, 80, 24), inputCtx: ctx}
	keys := attachui.Keys{Prefix: 0x1d}
	var want bytes.Buffer
	for i := 0; want.Len() < 16000; i++ {
		fmt.Fprintf(&want, "line %05d %s\r", i, strings.Repeat("x", 40))
	}
	for p := want.Bytes(); len(p) > 0; {
		n := min(len(p), 4000)
		a.keys(c, &keys, p[:n])
		p = p[n:]
	}
	for len(b.input()) < want.Len() {
		if ctx.Err() != nil {
			t.Fatalf("watchdog: the session got %d of the %d bytes typed", len(b.input()), want.Len())
		}
		time.Sleep(10 * time.Millisecond)
	}
	if got := b.input(); !bytes.Equal(got, want.Bytes()) {
		t.Fatalf("the session got %d bytes, not the %d typed, in order", len(got), want.Len())
	}
}

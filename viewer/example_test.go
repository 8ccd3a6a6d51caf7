package viewer_test

import (
	"context"
	"fmt"
	"os"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/viewer"
)

// Watch a room and print what the session shows when it ends. (Compiled,
// not run: it needs a relay and a token.)
func ExampleDial() {
	ctx, cancel := context.WithTimeout(context.Background(), 15*time.Second)
	defer cancel()
	c, err := viewer.Dial(ctx, viewer.Config{
		URL:   "wss://relay.example/v1/rooms/build-42",
		Token: os.Getenv("PTYHOST_TOKEN"),
		OnEvent: func(ev viewer.Event) {
			switch ev.Kind {
			case viewer.EventOutput:
				os.Stdout.Write(ev.Data) // already sanitized for this role
			case viewer.EventPen:
				fmt.Fprintln(os.Stderr, "pen:", ev.Pen.HolderUserID)
			}
		},
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, err) // errors.Is(err, viewer.ErrRefused), ErrUnreachable
		return
	}
	defer c.Close()
	<-c.Done()
	if ex, ok := c.Exit(); ok {
		fmt.Println("exit status", ex.Code)
	}
	if scr, _, ok := c.Mirror(); ok {
		fmt.Println(scr.Cols, "x", scr.Rows, attachwire.BufferAlternate == scr.Active)
	}
}

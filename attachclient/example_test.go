package attachclient_test

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"time"

	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/attachclient"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/token"
)

// Example carries a session to a relay on a loopback port and watches it
// from a viewer leg.
func Example() {
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()

	// A relay, and the key that signs its tokens.
	pub, key, _ := token.GenerateKey()
	rl, err := relay.New(relay.Config{
		PublicKeys: []ed25519.PublicKey{pub},
		Logger:     slog.New(slog.NewTextHandler(io.Discard, nil)),
	})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer rl.Close()
	ln, _ := net.Listen("tcp", "127.0.0.1:0")
	srv := &http.Server{Handler: rl}
	go srv.Serve(ln)
	defer srv.Close()
	roomURL := "ws://" + ln.Addr().String() + "/v1/rooms/demo"

	mint := func(c token.Claims) string {
		jti, _ := token.NewJTI()
		now := time.Now().Unix()
		c.SessionID, c.RoomID, c.OrgID, c.Audience, c.JTI = "demo", "demo", "example", "relay", jti
		c.IssuedAt, c.ExpiresAt = now, now+60
		tok, _ := token.Mint(key, c)
		return tok
	}

	// A viewer waits in the room before the host arrives.
	viewer, _, err := relaytest.Dial(ctx, roomURL, mint(token.Claims{Role: attachwire.RoleViewer, UserID: "ann"}), nil)
	if err != nil {
		fmt.Println(err)
		return
	}
	defer viewer.WS.CloseNow()
	viewer.SendControl(ctx, attachwire.Subscribe{SessionID: "demo", AsRole: attachwire.RoleViewer})
	for { // admitted once the relay reports the room's state
		f, err := viewer.Next(ctx)
		if err != nil {
			fmt.Println(err)
			return
		}
		if c, _ := attachwire.DecodeControl(f.Payload); f.Type == attachwire.TypeControl && c != nil && c.ControlType() == "room_state" {
			break
		}
	}

	// The host: a session and RunHost carrying it. The host token's epoch
	// is the session's.
	const epoch = 1
	sess, err := ptyhost.Spawn(ptyhost.Spec{Command: []string{"echo", "hello, relay"}, Epoch: epoch})
	if err != nil {
		fmt.Println(err)
		return
	}
	defer sess.Stop(ctx)
	done := make(chan error, 1)
	go func() {
		done <- attachclient.RunHost(ctx, attachclient.HostConfig{
			AttachURL: roomURL,
			TokenSource: func(context.Context) (string, error) {
				e := uint64(epoch)
				return mint(token.Claims{Role: attachwire.RoleHost, Epoch: &e}), nil
			},
			Session:           sess.Agent(),
			FinalScreenWindow: 100 * time.Millisecond,
		})
	}()

	// The viewer's screen: a snapshot replaces it, Output appends to it.
	// Whether the line comes as Output or inside a snapshot depends on
	// when the relay asked the host for one; a viewer handles both.
	var screen string
	for !strings.Contains(screen, "hello, relay") {
		f, err := viewer.Next(ctx)
		if err != nil {
			fmt.Println(err)
			return
		}
		switch f.Type {
		case attachwire.TypeOutput:
			screen += string(f.Payload)
		case attachwire.TypeSnapshot:
			snap, _ := attachwire.DecodeSnapshot(f.Payload)
			scr, _ := snap.DecodeScreen()
			screen = ""
			for _, c := range scr.Primary {
				screen += c.Content
			}
		}
	}
	fmt.Printf("viewer: %q\n", strings.TrimSpace(screen))
	fmt.Println("RunHost:", <-done) // after Exit and the final-screen window
	ex, _ := sess.Exit()
	fmt.Println("exit status", ex.Code)
	// Output:
	// viewer: "hello, relay"
	// RunHost: <nil>
	// exit status 0
}

package attachclient

import (
	"bufio"
	"context"
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"strings"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
	"github.com/ptyhost/ptyhost/token"
)

// RelaySeedEnv carries the hex seed of the ed25519 key the relay child
// trusts and mints its viewers' tokens with; the parent mints its hosts'
// with the same key.
const RelaySeedEnv = "ATTACHCLIENT_TEST_RELAY_SEED"

// relayChild is the "relay" helper: a relay on a loopback port and one
// draining viewer a room, in a process of their own, so that a benchmark
// process holds the host alone and its CPU time is the host's.
//
// It prints "addr ws://127.0.0.1:PORT", then for each line "ROOM KEY" on
// its input (KEY a room key as seal.Key.Encode writes it, or "-" for a
// plain room) joins ROOM as a viewer, prints "ready" once the relay has
// placed it and "live" once the room's host is bound, reads (opening
// every sealed frame) until the Exit frame and prints "done OUTPUTBYTES
// SNAPSHOTS". It exits when its input ends.
func relayChild() int {
	if err := serveRelayChild(os.Stdin, os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "relay child:", err)
		return 1
	}
	return 0
}

func serveRelayChild(in io.Reader, out io.Writer) error {
	seed, err := hex.DecodeString(os.Getenv(RelaySeedEnv))
	if err != nil || len(seed) != ed25519.SeedSize {
		return fmt.Errorf("%s: a %d-byte hex seed, please", RelaySeedEnv, ed25519.SeedSize)
	}
	priv := ed25519.NewKeyFromSeed(seed)
	rl, err := relay.New(relay.Config{
		PublicKeys:     []ed25519.PublicKey{priv.Public().(ed25519.PublicKey)},
		Logger:         slog.New(slog.NewTextHandler(io.Discard, nil)),
		DialsPerSecond: 1000,
		// Twice the stream: a viewer the load delays never falls behind
		// far enough to be skipped to a snapshot, which would make the
		// host send a fresh screen.
		RingBytes:        64 << 20,
		ViewerQueueBytes: 64 << 20,
	})
	if err != nil {
		return err
	}
	defer rl.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: rl, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	url := "ws://" + ln.Addr().String()
	fmt.Fprintln(out, "addr", url)
	sc := bufio.NewScanner(in)
	for sc.Scan() {
		room, key, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			return fmt.Errorf("a line of ROOM KEY, not %q", sc.Text())
		}
		n, snaps, err := drainRoom(priv, url+"/v1/rooms/"+room, room, key, out)
		if err != nil {
			return fmt.Errorf("room %s: %w", room, err)
		}
		fmt.Fprintln(out, "done", n, snaps)
	}
	return sc.Err()
}

// drainRoom joins room as a viewer, says "ready" once placed and "live"
// once the host is, and reads until the Exit frame: the Output bytes and
// the snapshots it saw.
func drainRoom(priv ed25519.PrivateKey, roomURL, room, key string, out io.Writer) (int, int, error) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	sub := attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer}
	var opener *seal.Room
	if key != "-" {
		k, err := seal.ParseKey(key)
		if err != nil {
			return 0, 0, err
		}
		sub.Sealed, opener = k.ID().String(), seal.NewRoom(k, room)
	}
	jti, err := token.NewJTI()
	if err != nil {
		return 0, 0, err
	}
	now := time.Now().Unix()
	tok, err := token.Mint(priv, token.Claims{RoomID: room, SessionID: room, Role: attachwire.RoleViewer, UserID: "v",
		OrgID: relaytest.DefaultOrg, Audience: "relay", JTI: jti, IssuedAt: now, ExpiresAt: now + 600})
	if err != nil {
		return 0, 0, err
	}
	c, _, err := relaytest.Dial(ctx, roomURL, tok, nil)
	if err != nil {
		return 0, 0, err
	}
	defer c.WS.CloseNow()
	if err := c.SendControl(ctx, sub); err != nil {
		return 0, 0, err
	}
	if _, err := relaytest.NextControl[attachwire.RoomState](ctx, c); err != nil {
		return 0, 0, err
	}
	fmt.Fprintln(out, "ready")
	n, snaps, live := 0, 0, false
	for {
		f, err := c.Next(ctx)
		if err != nil {
			return n, snaps, err
		}
		if opener != nil && f.Type != attachwire.TypeControl {
			if f, err = opener.Open(f, 1); err != nil {
				return n, snaps, err
			}
		}
		switch f.Type {
		case attachwire.TypeOutput:
			n += len(f.Payload)
		case attachwire.TypeSnapshot:
			snaps++
		case attachwire.TypeExit:
			return n, snaps, nil
		case attachwire.TypeControl:
			ctl, err := attachwire.DecodeControl(f.Payload)
			if err != nil {
				return n, snaps, err
			}
			switch ctl := ctl.(type) {
			case attachwire.ErrorControl:
				return n, snaps, ctl
			case attachwire.RoomState:
				if ctl.State == attachwire.RoomLive && !live {
					live = true
					fmt.Fprintln(out, "live")
				}
			}
		}
	}
}

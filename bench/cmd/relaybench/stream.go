package main

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"net/http"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/token"
)

// streamLoad is the shape of one stream: frames Output frames of size
// payload bytes each, sent by one host in windows of window frames, each
// window sent at once and the next only when every viewer has the last
// frame of this one. A window is what a viewer's writer finds queued
// when it wakes; windows keep the bare forwarder's bounded queues from
// overflowing and the relay's viewers inside their lag budget, so both
// deliver every byte.
type streamLoad struct {
	frames, window, size int
}

// streamViewer is one viewer's progress, written by its reader only.
type streamViewer struct {
	conn    *websocket.Conn
	bytes   atomic.Int64 // every message's bytes
	ready   chan struct{}
	readyOK sync.Once
}

// stream dials a host and n viewers into a fresh room of s, waits until
// every viewer is receiving (the relay: its join snapshot; the forwarder:
// a probe frame the host repeats until then), then times the load's
// frames from the host's first send until every viewer has the last one.
// The result's bytes are what the viewers received meanwhile.
func stream(ctx context.Context, s *server, key ed25519.PrivateKey, room string, n int, load streamLoad, mode attachwire.PresenceMode) (stormResult, error) {
	bare := s.name == "bare"
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	var res stormResult
	h, err := dialStreamHost(ctx, s, key, room)
	if err != nil {
		return res, err
	}
	defer h.CloseNow()
	var hostReads sync.WaitGroup
	hostReads.Go(func() { // the relay's controls to the host, unanswered
		for {
			if _, _, err := h.Read(ctx); err != nil {
				return
			}
		}
	})
	defer hostReads.Wait()
	defer cancel()

	var (
		viewers = make([]*streamViewer, n)
		windows sync.WaitGroup // the current window's last frame, every viewer
		readers sync.WaitGroup
		firstEr atomic.Pointer[error]
		sem     = make(chan struct{}, dialsInFlight)
		dials   sync.WaitGroup
	)
	fail := func(err error) {
		firstEr.CompareAndSwap(nil, &err)
		cancel()
	}
	first := uint64(2) // seq 1 is the relay's join snapshot
	last := first + uint64(load.frames) - 1
	for i := range viewers {
		v := &streamViewer{ready: make(chan struct{})}
		viewers[i] = v
		sem <- struct{}{}
		dials.Go(func() {
			defer func() { <-sem }()
			c, err := dialViewer(ctx, s, key, room, i, mode)
			if err != nil {
				fail(err)
				return
			}
			v.conn = c
			readers.Go(func() { v.read(ctx, first, last, load.window, windows.Done, fail) })
		})
	}
	dials.Wait()
	if err := waitReady(ctx, h, bare, viewers); err != nil {
		fail(err)
	}
	if e := firstEr.Load(); e != nil {
		closeViewers(viewers)
		readers.Wait()
		return res, *e
	}
	var before int64
	for _, v := range viewers {
		before += v.bytes.Load()
	}
	payload := make([]byte, load.size)
	for i := range payload {
		payload[i] = 'a' + byte(i%26)
	}
	cpu0, err := procCPU(s.cmd.Process.Pid)
	if err != nil {
		return res, err
	}
	start := time.Now()
	for seq := first; seq <= last && ctx.Err() == nil; {
		end := min(seq+uint64(load.window)-1, last)
		windows.Add(n)
		for ; seq <= end; seq++ {
			b, _ := attachwire.NewOutputFrame(seq, seq, payload).MarshalBinary()
			if err := h.Write(ctx, websocket.MessageBinary, b); err != nil {
				fail(fmt.Errorf("%s: host send %d: %w", s.name, seq, err))
			}
		}
		waitGroupOrDone(ctx, &windows)
	}
	res.wall = time.Since(start)
	cpu1, err := procCPU(s.cmd.Process.Pid)
	res.cpu = cpu1 - cpu0
	for _, v := range viewers {
		res.bytes += v.bytes.Load()
	}
	res.bytes -= before
	cancel()
	closeViewers(viewers)
	readers.Wait()
	if e := firstEr.Load(); e != nil {
		return res, *e
	}
	settle(s.cmd.Process.Pid)
	return res, err
}

// read reads v's messages until ctx ends: it counts their bytes, marks v
// ready at its first snapshot or Output frame, and calls windowDone once
// for each window (of window frames from first, the last one ending at
// last) whose final frame it has received.
func (v *streamViewer) read(ctx context.Context, first, last uint64, window int, windowDone func(), fail func(error)) {
	next := min(first+uint64(window)-1, last) // the end of the window under way
	for {
		_, b, err := v.conn.Read(ctx)
		if err != nil {
			if ctx.Err() == nil {
				fail(fmt.Errorf("viewer: %w", err))
			}
			return
		}
		v.bytes.Add(int64(len(b)))
		f, err := attachwire.DecodeFrame(b)
		if err != nil {
			continue
		}
		switch f.Type {
		case attachwire.TypeSnapshot, attachwire.TypeOutput:
			v.readyOK.Do(func() { close(v.ready) })
		}
		for f.Type == attachwire.TypeOutput && next <= last && f.Seq >= next {
			windowDone()
			if next == last {
				next = last + 1
			} else {
				next = min(next+uint64(window), last)
			}
		}
	}
}

// waitReady waits until every viewer is ready; for the forwarder, whose
// readers register after their dial returns, the host sends a probe
// frame (seq 0, which no window counts) every 20 ms meanwhile.
func waitReady(ctx context.Context, h *websocket.Conn, bare bool, viewers []*streamViewer) error {
	t := time.NewTicker(20 * time.Millisecond)
	defer t.Stop()
	probe, _ := attachwire.NewOutputFrame(0, 0, []byte("probe")).MarshalBinary()
	for _, v := range viewers {
		for waiting := true; waiting; {
			select {
			case <-v.ready:
				waiting = false
			case <-t.C:
				if bare {
					if err := h.Write(ctx, websocket.MessageBinary, probe); err != nil {
						return fmt.Errorf("host probe: %w", err)
					}
				}
			case <-ctx.Done():
				return fmt.Errorf("viewers not ready: %w", ctx.Err())
			}
		}
	}
	return nil
}

// waitGroupOrDone waits for wg, or until ctx ends (a viewer failed).
func waitGroupOrDone(ctx context.Context, wg *sync.WaitGroup) {
	done := make(chan struct{})
	go func() {
		wg.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-ctx.Done():
	}
}

func closeViewers(viewers []*streamViewer) {
	for _, v := range viewers {
		if v.conn != nil {
			v.conn.CloseNow()
		}
	}
}

// dialStreamHost dials the room's host: for the relay, a host leg that
// answers its first snapshot_request with an empty screen at seq 1; for
// the forwarder, the room's writer.
func dialStreamHost(ctx context.Context, s *server, key ed25519.PrivateKey, room string) (*websocket.Conn, error) {
	if s.name == "bare" {
		c, _, err := websocket.Dial(ctx, "ws://"+s.addr+"/v1/rooms/"+room+"/host", &websocket.DialOptions{
			Subprotocols: []string{relay.Subprotocol}})
		if err != nil {
			return nil, fmt.Errorf("bare: dial host: %w", err)
		}
		return c, nil
	}
	epoch := uint64(1)
	tok, err := mintToken(key, room, token.Claims{Role: attachwire.RoleHost, Epoch: &epoch})
	if err != nil {
		return nil, err
	}
	h := http.Header{}
	h.Set("Authorization", "Bearer "+tok)
	c, _, err := websocket.Dial(ctx, "ws://"+s.addr+"/v1/rooms/"+room, &websocket.DialOptions{
		HTTPHeader: h, Subprotocols: []string{relay.Subprotocol}})
	if err != nil {
		return nil, fmt.Errorf("relay: dial host: %w", err)
	}
	c.SetReadLimit(16 << 20)
	if err := sendControl(ctx, c, attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleHost, Epoch: &epoch}); err != nil {
		c.CloseNow()
		return nil, err
	}
	for { // the first snapshot_request, then the screen it asks for
		_, b, err := c.Read(ctx)
		if err != nil {
			c.CloseNow()
			return nil, fmt.Errorf("relay: host: %w", err)
		}
		f, err := attachwire.DecodeFrame(b)
		if err != nil || f.Type != attachwire.TypeControl {
			continue
		}
		if ctl, err := attachwire.DecodeControl(f.Payload); err == nil {
			if _, ok := ctl.(attachwire.SnapshotRequest); ok {
				break
			}
		}
	}
	scr := &attachwire.Screen{Epoch: epoch, Echo: attachwire.EchoOn, Cols: 1, Rows: 1,
		Primary: []attachwire.Cell{attachwire.BlankCell()}}
	sn, err := attachwire.NewSnapshot(0, scr)
	if err == nil {
		var f attachwire.Frame
		if f, err = sn.Frame(1, 1); err == nil {
			var b []byte
			if b, err = f.MarshalBinary(); err == nil {
				err = c.Write(ctx, websocket.MessageBinary, b)
			}
		}
	}
	if err != nil {
		c.CloseNow()
		return nil, fmt.Errorf("relay: host snapshot: %w", err)
	}
	return c, nil
}

// dialViewer dials viewer i and, for the relay, subscribes it.
func dialViewer(ctx context.Context, s *server, key ed25519.PrivateKey, room string, i int, mode attachwire.PresenceMode) (*websocket.Conn, error) {
	h := http.Header{}
	if s.name != "bare" {
		tok, err := mintToken(key, room, token.Claims{Role: attachwire.RoleViewer, UserID: fmt.Sprintf("v%d", i)})
		if err != nil {
			return nil, err
		}
		h.Set("Authorization", "Bearer "+tok)
	}
	c, _, err := websocket.Dial(ctx, "ws://"+s.addr+"/v1/rooms/"+room, &websocket.DialOptions{
		HTTPHeader: h, Subprotocols: []string{relay.Subprotocol}})
	if err != nil {
		return nil, fmt.Errorf("%s: dial %d: %w", s.name, i, err)
	}
	c.SetReadLimit(16 << 20)
	if s.name != "bare" {
		err := sendControl(ctx, c, attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer, Presence: mode})
		if err != nil {
			c.CloseNow()
			return nil, fmt.Errorf("%s: subscribe %d: %w", s.name, i, err)
		}
	}
	return c, nil
}

// mintToken mints a ten-minute token for room with c's role, user and
// epoch.
func mintToken(key ed25519.PrivateKey, room string, c token.Claims) (string, error) {
	jti, err := token.NewJTI()
	if err != nil {
		return "", err
	}
	now := time.Now().Unix()
	c.SessionID, c.RoomID, c.OrgID, c.Audience, c.JTI = room, room, "bench", "relay", jti
	c.IssuedAt, c.ExpiresAt = now, now+600
	return token.Mint(key, c)
}

func sendControl(ctx context.Context, c *websocket.Conn, ctl attachwire.Control) error {
	f, err := attachwire.ControlFrame(ctl)
	if err != nil {
		return err
	}
	b, err := f.MarshalBinary()
	if err != nil {
		return err
	}
	return c.Write(ctx, websocket.MessageBinary, b)
}

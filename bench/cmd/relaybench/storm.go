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

// dialsInFlight bounds the dials under way at once, the same for every
// server: a storm, not a single burst of thousands of SYNs.
const dialsInFlight = 32

// stormResult is one join storm against one server.
type stormResult struct {
	cpu      time.Duration // the server process's CPU from the first dial to the last viewer done
	wall     time.Duration
	controls int64 // control frames the viewers received
	bytes    int64 // bytes the viewers received
}

// storm dials n viewers into a fresh room of s and waits until each is
// done: for the bare forwarder, its dial accepted; for the relay, its
// member view showing all n (mode says which presence forms it reads).
// Then it closes them all and lets the server settle, uncounted.
func storm(ctx context.Context, s *server, key ed25519.PrivateKey, room string, n int, mode attachwire.PresenceMode) (stormResult, error) {
	bare := s.name == "bare"
	toks := make([]string, n)
	if !bare {
		for i := range toks {
			jti, err := token.NewJTI()
			if err != nil {
				return stormResult{}, err
			}
			now := time.Now().Unix()
			toks[i], err = token.Mint(key, token.Claims{SessionID: room, RoomID: room, OrgID: "bench", Audience: "relay",
				Role: attachwire.RoleViewer, UserID: fmt.Sprintf("v%d", i), JTI: jti, IssuedAt: now, ExpiresAt: now + 600})
			if err != nil {
				return stormResult{}, err
			}
		}
	}
	sub, err := attachwire.ControlFrame(attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer, Presence: mode})
	if err != nil {
		return stormResult{}, err
	}
	subWire, err := sub.MarshalBinary()
	if err != nil {
		return stormResult{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	var (
		res     stormResult
		conns   = make([]*websocket.Conn, n)
		done    sync.WaitGroup
		readers sync.WaitGroup
		firstEr atomic.Pointer[error]
		sem     = make(chan struct{}, dialsInFlight)
	)
	fail := func(err error) {
		firstEr.CompareAndSwap(nil, &err)
		cancel()
	}
	cpu0, err := procCPU(s.cmd.Process.Pid)
	if err != nil {
		return res, err
	}
	start := time.Now()
	done.Add(n)
	for i := range n {
		sem <- struct{}{}
		go func() {
			defer func() { <-sem }()
			h := http.Header{}
			if !bare {
				h.Set("Authorization", "Bearer "+toks[i])
			}
			c, _, err := websocket.Dial(ctx, "ws://"+s.addr+"/v1/rooms/"+room, &websocket.DialOptions{
				HTTPHeader: h, Subprotocols: []string{relay.Subprotocol}})
			if err != nil {
				fail(fmt.Errorf("%s: dial %d: %w", s.name, i, err))
				done.Done()
				return
			}
			c.SetReadLimit(16 << 20)
			conns[i] = c
			if err := c.Write(ctx, websocket.MessageBinary, subWire); err != nil {
				fail(fmt.Errorf("%s: subscribe %d: %w", s.name, i, err))
				done.Done()
				return
			}
			if bare {
				done.Done()
			}
			readers.Add(1)
			go func() {
				defer readers.Done()
				v := memberView{want: n, done: done.Done}
				if bare {
					v.reached = true
				}
				for {
					_, b, err := c.Read(ctx)
					if err != nil {
						if !v.reached {
							fail(fmt.Errorf("%s: viewer %d: %w (%s)", s.name, i, err, v.String()))
							done.Done()
						}
						return
					}
					atomic.AddInt64(&res.bytes, int64(len(b)))
					f, err := attachwire.DecodeFrame(b)
					if err != nil || f.Type != attachwire.TypeControl {
						continue
					}
					atomic.AddInt64(&res.controls, 1)
					if ctl, err := attachwire.DecodeControl(f.Payload); err == nil {
						v.apply(ctl)
					}
				}
			}()
		}()
	}
	done.Wait()
	res.wall = time.Since(start)
	cpu1, err := procCPU(s.cmd.Process.Pid)
	res.cpu = cpu1 - cpu0
	controls, bytes := atomic.LoadInt64(&res.controls), atomic.LoadInt64(&res.bytes)
	cancel()
	for _, c := range conns {
		if c != nil {
			c.CloseNow()
		}
	}
	readers.Wait()
	res.controls, res.bytes = controls, bytes
	if e := firstEr.Load(); e != nil {
		return res, *e
	}
	settle(s.cmd.Process.Pid)
	return res, err
}

// settle waits until the server's CPU stops moving (its legs torn down),
// at most a few seconds, so that a storm's teardown is not counted in the
// next one.
func settle(pid int) {
	last, _ := procCPU(pid)
	for range 50 {
		time.Sleep(100 * time.Millisecond)
		now, _ := procCPU(pid)
		if now == last {
			return
		}
		last = now
	}
}

// memberView is what one viewer knows of the room's people.
type memberView struct {
	want    int
	done    func()
	reached bool
	members map[string]bool
	total   int
	counts  bool
}

func (v *memberView) apply(c attachwire.Control) {
	switch c := c.(type) {
	case attachwire.Presence:
		if c.Op == attachwire.PresenceList || v.members == nil {
			v.members = make(map[string]bool)
		}
		for _, m := range c.Members {
			if c.Op == attachwire.PresenceLeave {
				delete(v.members, m.ConnID)
			} else {
				v.members[m.ConnID] = true
			}
		}
		v.counts, v.total = false, len(v.members)
	case attachwire.PresenceCount:
		v.counts, v.total = true, int(c.Total)
	default:
		return
	}
	if !v.reached && v.total == v.want {
		v.reached = true
		v.done()
	}
}

func (v *memberView) String() string {
	return fmt.Sprintf("saw %d of %d members (counts %v)", v.total, v.want, v.counts)
}

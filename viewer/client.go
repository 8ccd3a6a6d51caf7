package viewer

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"path"
	"slices"
	"sync"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/sanitize"
	"github.com/ptyhost/ptyhost/internal/inputcut"
	"github.com/ptyhost/ptyhost/web/engine"
)

// maxUIRunes caps the UI strings the Client hands out (names, messages,
// labels).
const maxUIRunes = 200

// Client is one viewer or driver in a room, across reconnections: a
// carrier per leg (WebSocket or the degraded lane), the leg's protocol
// engine (web/engine, the one the browser page runs) and the mirror. It
// is safe for concurrent use; see the package doc for its goroutines.
type Client struct {
	cfg    Config
	claims tokenClaims

	ctx    context.Context
	cancel context.CancelFunc
	done   chan struct{}
	wake   chan struct{} // a write is waiting for the leg's writer

	mu       sync.Mutex
	eng      *engine.Engine
	mirror   mirror
	role     attachwire.Role
	pen      Pen
	members  []attachwire.Member
	room     attachwire.RoomStatus
	exit     *attachwire.Exit
	ended    bool
	err      error
	viewport attachwire.Viewport
	out      []attachwire.Frame // waiting for the leg's writer, in order
	// changed is closed (and cleared) by the next poke: an ack or a pen
	// change may let InputWait go on. Made by a waiter.
	changed chan struct{}
	// legCancel drops the current leg; regrab makes the next leg
	// subscribe as a driver and ask for the pen (a Grab from a leg that
	// subscribed as a viewer).
	legCancel context.CancelFunc
	regrab    bool
	onLane    bool // the next leg rides the degraded lane

	// Owned by the connection loop.
	closeLeg   bool // the session ended: close the leg and stop
	progressed bool // the current leg delivered a frame
	wsFails    int  // WebSocket dials failed in a row
	laneFails  int  // lane dials failed in a row
}

// Dial connects to the room cfg.URL names and subscribes, then keeps the
// leg (and its successors) running until the session ends, the relay
// refuses the leg, or Close. The first leg's failure is Dial's error: one
// matching ErrUnreachable, a *RefusedError (ErrRefused), or ErrConfig. ctx
// bounds this first dial only.
func Dial(ctx context.Context, cfg Config) (*Client, error) {
	cfg = cfg.withDefaults()
	c := &Client{cfg: cfg, done: make(chan struct{}), wake: make(chan struct{}, 1)}
	if err := c.configure(); err != nil {
		return nil, err
	}
	c.ctx, c.cancel = context.WithCancel(context.Background())
	c.mirror.scrollback = max(cfg.Scrollback, 0)
	c.viewport = cfg.Viewport
	c.eng = engine.New(engine.Options{
		SessionID: c.cfg.SessionID, ConnID: c.claims.JTI, Driver: c.role == attachwire.RoleDriver,
		MaxPendingBytes: cfg.MaxPendingInput, Mirror: true, Key: cfg.Key,
	})
	cr, err := c.connect(ctx)
	// Failed dials are tried again until the fallback to the lane has
	// had its chance: FallbackAfter WebSocket dials, then the lane once.
	var de *dialError
	for attempt := 0; err != nil && errors.As(err, &de) && c.wsFails > 0 && ctx.Err() == nil; attempt++ {
		t := time.NewTimer(backoff(c.cfg.BackoffMin, c.cfg.BackoffMax, attempt, 0))
		select {
		case <-ctx.Done():
		case <-t.C:
			cr, err = c.connect(ctx)
		}
		t.Stop()
	}
	if err != nil {
		c.cancel()
		return nil, err
	}
	go c.loop(cr)
	return c, nil
}

// configure checks the Config and reads the token's claims.
func (c *Client) configure() error {
	u, err := url.Parse(c.cfg.URL)
	if err != nil {
		return fmt.Errorf("%w: url: %v", ErrConfig, err)
	}
	if u.Scheme != "ws" && u.Scheme != "wss" {
		return fmt.Errorf("%w: url scheme %q, want ws or wss", ErrConfig, u.Scheme)
	}
	u.Fragment, u.RawFragment = "", ""
	c.cfg.URL = u.String()
	if c.cfg.Token == "" {
		return fmt.Errorf("%w: no token", ErrConfig)
	}
	if c.claims, err = peekClaims(c.cfg.Token); err != nil {
		return err
	}
	if c.cfg.SessionID == "" {
		c.cfg.SessionID = c.claims.SessionID
	}
	if c.cfg.SessionID == "" {
		c.cfg.SessionID = path.Base(u.Path)
	}
	c.role = c.cfg.Role
	if c.role == "" {
		c.role = c.claims.Role
	}
	if c.role != attachwire.RoleDriver && c.role != attachwire.RoleViewer {
		return fmt.Errorf("%w: role %q, want driver or viewer", ErrConfig, c.role)
	}
	if c.cfg.Viewport.Cols == 0 || c.cfg.Viewport.Rows == 0 {
		c.cfg.Viewport = attachwire.Viewport{}
	}
	return nil
}

// Close ends the Client: the leg is closed and the goroutines joined. It
// is idempotent and returns nil.
func (c *Client) Close() error {
	c.cancel()
	<-c.done
	return nil
}

// Done is closed when the Client has ended (after Close, the session's
// end or a refusal).
func (c *Client) Done() <-chan struct{} { return c.done }

// Err returns why the Client ended: nil after Close or the session's end,
// a *RefusedError after a refusal. It is nil while the Client runs.
func (c *Client) Err() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.err
}

// Exit returns the session's exit status, once the Exit frame was seen.
func (c *Client) Exit() (attachwire.Exit, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.exit == nil {
		return attachwire.Exit{}, false
	}
	return *c.exit, true
}

// Ended reports whether the session has ended (Exit seen, or the room
// reported "ended").
func (c *Client) Ended() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.ended
}

// Mirror returns a copy of the mirrored screen and the last host seq it
// shows; ok is false until the first Snapshot. Once the Client has ended
// it returns the screen it ended on.
func (c *Client) Mirror() (scr attachwire.Screen, seq uint64, ok bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	seq, epoch, _ := c.eng.Applied()
	scr, ok = c.mirror.screen(epoch, c.eng.Echo())
	return scr, seq, ok
}

// Pen returns the pen as last reported.
func (c *Client) Pen() Pen {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.pen
}

// Presence returns the room's members as last reported (user ids made
// displayable).
func (c *Client) Presence() []attachwire.Member {
	c.mu.Lock()
	defer c.mu.Unlock()
	return slices.Clone(c.members)
}

// Room returns the room's state as last reported ("" before the first).
func (c *Client) Room() attachwire.RoomStatus {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.room
}

// Lane reports whether the Client rides (or is about to ride) the
// degraded lane rather than a WebSocket.
func (c *Client) Lane() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.onLane
}

// Role returns the role this Client subscribes with.
func (c *Client) Role() attachwire.Role {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.role
}

// UserID returns the token's user id, made displayable.
func (c *Client) UserID() string { return sanitize.UIString(c.claims.UserID, maxUIRunes) }

// ConnID returns the id the relay knows this Client's connection by (the
// token's jti): its entry in the presence list and the pen holder's id
// when it holds the pen.
func (c *Client) ConnID() string { return c.claims.JTI }

// Input sends p to the session. It needs the pen (ErrNoPen otherwise);
// the bytes are kept and resent on a new leg until the relay acknowledges
// them. It does not block on the network.
func (c *Client) Input(p []byte) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.usable(); err != nil {
		return err
	}
	if !c.eng.Holding() {
		return ErrNoPen
	}
	fs, err := c.eng.Input(p)
	if err != nil {
		return ErrInputFull
	}
	c.queue(fs...)
	return nil
}

// InputWait is Input for a caller that would rather wait than lose input,
// as a terminal whose reads must not be dropped: while MaxPendingInput
// bytes await their acknowledgement it waits for acks, and input larger
// than that bound goes in parts as acks make room. It returns ctx's error
// or ErrClosed if those end first, and ErrNoPen if the pen is lost
// before all of p is queued (what was queued still goes).
func (c *Client) InputWait(ctx context.Context, p []byte) error {
	for len(p) > 0 {
		c.mu.Lock()
		if err := c.usable(); err != nil {
			c.mu.Unlock()
			return err
		}
		if !c.eng.Holding() {
			c.mu.Unlock()
			return ErrNoPen
		}
		// The parts wait for acks in between: cut where a delay does no
		// harm (inputcut).
		n := inputcut.Cut(p, c.cfg.MaxPendingInput)
		if fs, err := c.eng.Input(p[:n]); err == nil {
			p = p[n:]
			c.queue(fs...)
			c.mu.Unlock()
			continue
		}
		if c.changed == nil {
			c.changed = make(chan struct{})
		}
		changed := c.changed
		c.mu.Unlock()
		select {
		case <-changed:
		case <-c.done:
			return ErrClosed
		case <-ctx.Done():
			return ctx.Err()
		}
	}
	return nil
}

// Grab asks for the pen. The answer comes as an EventPen (or, for a
// viewer token, an error that ends the Client: ErrViewerRole is returned
// instead of asking).
//
// A leg that subscribed as a viewer with a driver token cannot take the
// pen: Grab then subscribes again as a driver (a resume, so the mirror
// carries on) and asks for the pen on the new leg.
func (c *Client) Grab() error {
	if c.claims.Role == attachwire.RoleViewer {
		return ErrViewerRole
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.usable(); err != nil {
		return err
	}
	if c.role == attachwire.RoleViewer {
		c.role, c.regrab = attachwire.RoleDriver, true
		c.eng.SetDriver(true)
		if c.legCancel != nil {
			c.legCancel()
		}
		return nil
	}
	c.queue(c.eng.Grab())
	return nil
}

// Proposer reports whether the token is a proposer's: a driver whose
// input needs approval, which never holds the pen and proposes what it
// would type (Propose).
func (c *Client) Proposer() bool { return c.claims.Propose }

// Propose asks the host to propose text for approval on this
// participant's behalf (a proposer's token only; the relay refuses
// anyone else's). The proposal, and later its outcome, come as
// EventProposal.
func (c *Client) Propose(text string) error {
	if !c.claims.Propose {
		return ErrNotProposer
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.usable(); err != nil {
		return err
	}
	f, err := c.eng.Propose(text)
	if err != nil {
		return fmt.Errorf("viewer: %w", err)
	}
	c.queue(f)
	return nil
}

// Decide approves, edits or rejects the pending proposal id (verdict
// "approve", "edit" with text, the input to write instead, or "reject"
// with an optional reason). The relay passes on only the pen holder's
// decision; the outcome comes as an EventProposal.
func (c *Client) Decide(id, verdict, text, reason string) error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.usable(); err != nil {
		return err
	}
	f, err := c.eng.Decide(id, verdict, text, reason)
	if err != nil {
		return fmt.Errorf("viewer: %w", err)
	}
	c.queue(f)
	return nil
}

// Release gives the pen back.
func (c *Client) Release() error {
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.usable(); err != nil {
		return err
	}
	c.queue(c.eng.Release())
	return nil
}

// Resize advertises this terminal's size (the pen holder's is the
// session's size; others' are advisory). It is also used in the next
// subscribe.
func (c *Client) Resize(cols, rows int) error {
	if cols <= 0 || rows <= 0 || cols > attachwire.MaxScreenDim || rows > attachwire.MaxScreenDim {
		return fmt.Errorf("%w: viewport %dx%d", ErrConfig, cols, rows)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if err := c.usable(); err != nil {
		return err
	}
	c.viewport = attachwire.Viewport{Cols: uint32(cols), Rows: uint32(rows)}
	if f, ok := c.eng.Viewport(cols, rows); ok {
		// A newer size replaces one still waiting.
		c.out = slices.DeleteFunc(c.out, func(f attachwire.Frame) bool { return f.Type == attachwire.TypeResize })
		c.queue(f)
	}
	return nil
}

// usable returns ErrClosed once the Client has ended; c.mu is held.
func (c *Client) usable() error {
	if c.ended || c.ctx.Err() != nil {
		return ErrClosed
	}
	return nil
}

// queue hands frames to the leg's writer; c.mu is held.
func (c *Client) queue(fs ...attachwire.Frame) {
	c.out = append(c.out, fs...)
	c.poke()
}

// queueLeg makes the queue a new leg's: lead (the frames that open it:
// every Input not yet acknowledged, and on the lane the viewport) first,
// then the controls still waiting. The Input and Resize frames queued for
// the last leg go, lead carries them again. c.mu is held.
func (c *Client) queueLeg(lead []attachwire.Frame) {
	keep := slices.DeleteFunc(c.out, func(f attachwire.Frame) bool {
		return f.Type == attachwire.TypeInput || f.Type == attachwire.TypeResize
	})
	c.out = append(lead, keep...)
	c.poke()
}

// poke wakes the writer, and InputWait's waiters; c.mu is held.
func (c *Client) poke() {
	if c.changed != nil {
		close(c.changed)
		c.changed = nil
	}
	select {
	case c.wake <- struct{}{}:
	default:
	}
}

// emit hands ev to OnEvent; called from the connection loop only.
func (c *Client) emit(ev Event) {
	if c.cfg.OnEvent != nil {
		c.cfg.OnEvent(ev)
	}
}

// dial opens a leg and sends subscribe. Its errors are classified for the
// caller: *RefusedError (final), *dialError (retry), *retryAfterError.
func (c *Client) dial(ctx context.Context) (*websocket.Conn, error) {
	ctx, cancel := context.WithTimeout(ctx, c.cfg.DialTimeout)
	defer cancel()
	h := http.Header{}
	h.Set("Authorization", "Bearer "+c.cfg.Token)
	ws, resp, err := websocket.Dial(ctx, c.cfg.URL, &websocket.DialOptions{
		HTTPClient:   c.cfg.HTTPClient,
		HTTPHeader:   h,
		Subprotocols: []string{Subprotocol},
	})
	if err != nil {
		return nil, classifyDial(resp, err)
	}
	if ws.Subprotocol() != Subprotocol {
		ws.Close(websocket.StatusProtocolError, "version subprotocol not negotiated")
		return nil, &dialError{errors.New("the relay did not negotiate " + Subprotocol)}
	}
	ws.SetReadLimit(c.cfg.ReadLimit)
	c.mu.Lock()
	fs, err := c.eng.Subscribe(int(c.viewport.Cols), int(c.viewport.Rows))
	if err == nil {
		c.queueLeg(fs[1:])
	}
	c.mu.Unlock()
	if err == nil {
		var b []byte
		if b, err = fs[0].MarshalBinary(); err == nil {
			err = ws.Write(ctx, websocket.MessageBinary, b)
		}
	}
	if err != nil {
		ws.CloseNow()
		return nil, &dialError{fmt.Errorf("subscribe: %w", err)}
	}
	return ws, nil
}

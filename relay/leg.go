package relay

import (
	"context"
	"errors"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/attachwire"
	"golang.org/x/time/rate"
)

// maxQueuedControls bounds the relay-originated controls waiting for one
// leg's writer. Controls are small and few (presence, pen, acks); a leg
// that lets this many pile up is not reading, and is closed.
const maxQueuedControls = 4096

// leg is one WebSocket connection in a room: a host, driver or viewer.
//
// Goroutines: a goroutine of its own, started by the HTTP handler, which
// returns, reads the leg (it owns the leg and joins the others before it
// ends); one writer writes everything that goes out, so messages keep
// their order; the relay's keepalive loop pings it (keepalive.go).
type leg struct {
	relay  *Relay
	room   *room
	conn   *websocket.Conn
	role   attachwire.Role // the role the leg subscribed as
	userID string
	jti    string
	log    *slog.Logger
	// name and guest are the token's display name and whether it came
	// from an invite, for presence; exp is the token's expiry (unix
	// seconds), how long a kick refuses its jti.
	name  string
	guest bool
	exp   int64
	// propose: the token's prop claim; the leg never holds the pen and
	// proposes what it would type.
	propose bool

	ctx    context.Context // cancelled when the leg is torn down
	cancel context.CancelFunc

	counters legCounters
	deadline writeDeadline // the writer's, for each write and uncork
	// cc is the connection under conn, which the writer corks while it
	// writes and uncorks before it waits for anything but the socket
	// (wsconn.go); corked is whether it has. nil for legs without a
	// socket of their own.
	cc     *corkConn
	corked bool

	lastHeard atomic.Int64 // unix nanoseconds of the last message or pong
	// holding is set while the reader waits for room in the host's input
	// queue: the relay is not reading, so the peer's silence is the
	// relay's doing and keepalive does not count it.
	holding atomic.Bool
	// pings are the keepalive loop's pings waiting for their pongs
	// (keepalive.go).
	pings sync.WaitGroup

	mu       sync.Mutex
	out      [][]byte      // encoded controls waiting for the writer
	wake     chan struct{} // cap 1: something was queued or the leg ends
	closing  chan struct{} // closed by end
	ending   bool
	endErr   *attachwire.ErrorControl
	endCode  websocket.StatusCode
	endWhy   string
	viewport *attachwire.Viewport // the leg's latest advertised size
	pacer    *rate.Limiter        // ViewerBytesPerSecond, or nil; used by the writer only
	resume   *resumeRequest       // a resume_from waiting for the viewer writer
	// kills wait for a host leg's writer (Relay.Kill); killsDone is set
	// when that writer has stopped taking them.
	kills     []*killOrder
	killsDone bool
	// A host leg's place in its room's input window (inputwindow.go),
	// guarded by the room's mu: dedupAll is its host's InputDedupHeader
	// declaration, inNext the next window id its writer considers,
	// inFresh the first id taken while it was bound (below it: replays).
	dedupAll        bool
	inNext, inFresh uint64
	// wantsRecord is a host leg's subscribe asking for the room to be
	// recorded (record_room.go).
	wantsRecord bool
	// sealed is the key id the leg's subscribe stated (sealed.go); empty:
	// the leg speaks plain frames.
	sealed string
	// lane, when not nil, is the SSE stream of a degraded-lane leg: conn
	// is then nil, and write and finish go to the stream (see lane.go).
	lane *sseStream

	// Cluster (docs/relay.md): remote is set on a member standing in for a
	// leg of another node (it has no socket: what it is sent goes to that
	// node); cid is this node's leg's id while it is registered with
	// another node's room; remoteAck is the last Input that room queued.
	// joining and joined keep a member's controls for its join's reply.
	remote    *remoteRef
	cid       string
	remoteAck uint64
	joining   bool
	joined    [][]byte
	// penGen and penHeld are, for this node's leg, its room's pen
	// generation when the room began following another node, and whether
	// the leg held that pen (its join carries both). On a member,
	// penAlias is that generation when the member was granted the pen on
	// joining, and penAliasAt the owner's generation then: until the pen
	// next changes, Input stamped with either is the holder's (under the
	// room's mu).
	penGen     uint64
	penHeld    bool
	penAlias   uint64
	penAliasAt uint64

	// Presence (presence.go), under the room's mu: presCounts is the
	// subscribe's attachwire.PresenceCounts; presOrder the leg's place in
	// the room's joins; presAnnounced that an update told the room of it;
	// presSeen that it was sent its own first view; presInCounts that it
	// was last sent the counts form, presShown the shown list it was
	// sent; presAsked a presence_request waiting.
	presCounts    bool
	presOrder     uint64
	presAnnounced bool
	presSeen      bool
	presInCounts  bool
	presShown     uint64
	presAsked     bool
}

func newLeg(rl *Relay, conn *websocket.Conn, role attachwire.Role, userID, jti string, log *slog.Logger) *leg {
	ctx, cancel := context.WithCancel(rl.ctx)
	l := &leg{relay: rl, conn: conn, role: role, userID: userID, jti: jti, log: log,
		ctx: ctx, cancel: cancel, wake: make(chan struct{}, 1), closing: make(chan struct{}),
		counters: newLegCounters(rl.metrics, string(role))}
	if rl.cfg.ViewerBytesPerSecond > 0 && role != attachwire.RoleHost {
		burst := max(rl.cfg.ViewerQueueBytes, int64(rl.cfg.ViewerBytesPerSecond))
		l.pacer = rate.NewLimiter(rate.Limit(rl.cfg.ViewerBytesPerSecond), int(min(burst, 1<<30)))
	}
	l.heard()
	return l
}

// pace waits until the leg's byte-rate cap lets n more bytes out; it
// reports false if the leg ends first. A message larger than the bucket
// waits for the whole bucket.
func (l *leg) pace(n int) bool {
	if l.pacer == nil {
		return true
	}
	d := l.pacer.ReserveN(l.relay.cfg.Now(), min(n, l.pacer.Burst())).Delay()
	if d <= 0 {
		return true
	}
	if err := l.uncork(); err != nil {
		l.writeFailed(err)
		return false
	}
	t := time.NewTimer(d)
	defer t.Stop()
	select {
	case <-t.C:
		return true
	case <-l.closing:
		return false
	case <-l.ctx.Done():
		return false
	}
}

func (l *leg) heard() { l.lastHeard.Store(l.relay.cfg.Now().UnixNano()) }

func (l *leg) signal() {
	select {
	case l.wake <- struct{}{}:
	default:
	}
}

// sendWire queues an encoded control for the writer.
func (l *leg) sendWire(b []byte) {
	if l.remote != nil {
		l.sendRemote(b)
		return
	}
	l.mu.Lock()
	if l.ending {
		l.mu.Unlock()
		return
	}
	if len(l.out) >= maxQueuedControls {
		l.mu.Unlock()
		l.relay.metrics.backpressure.Inc()
		l.end(&attachwire.ErrorControl{Code: attachwire.CodeBackpressure, Message: "control queue full"},
			websocket.StatusPolicyViolation, "backpressure")
		return
	}
	l.out = append(l.out, b)
	l.mu.Unlock()
	l.signal()
}

// send queues a control for the writer.
func (l *leg) send(c attachwire.Control) {
	b, err := controlWire(c)
	if err != nil {
		l.log.Error("relay: encode control", "type", c.ControlType(), "err", err)
		return
	}
	l.sendWire(b)
}

// controlWire encodes c as a Control frame (seq 0).
func controlWire(c attachwire.Control) ([]byte, error) {
	f, err := attachwire.ControlFrame(c)
	if err != nil {
		return nil, err
	}
	return f.MarshalBinary()
}

// end asks the writer to send what is queued, then ctl (if not nil), then
// close with code and reason. The first call wins; later ones do nothing.
func (l *leg) end(ctl *attachwire.ErrorControl, code websocket.StatusCode, reason string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	if l.ending {
		return
	}
	l.ending, l.endErr, l.endCode, l.endWhy = true, ctl, code, reason
	close(l.closing)
	if l.remote != nil {
		l.endRemote(ctl, code, reason)
	}
}

// takeOut returns the queued controls and whether the leg is ending.
func (l *leg) takeOut() ([][]byte, bool) {
	l.mu.Lock()
	defer l.mu.Unlock()
	out := l.out
	l.out = nil
	return out, l.ending
}

// write sends one message within the write timeout.
func (l *leg) write(b []byte) error {
	if l.lane != nil {
		return l.laneWrite(b)
	}
	// The deadline is armed before the cork: corking waits for a write
	// the library may have under way from another goroutine (a ping, a
	// pong), and the deadline's close is what ends that one if the peer
	// takes nothing.
	l.deadline.arm(l.ctx, l.conn, l.relay.cfg.WriteTimeout)
	if l.cc != nil && !l.corked {
		l.cc.cork()
		l.corked = true
	}
	err := l.conn.Write(context.Background(), websocket.MessageBinary, b)
	late := l.deadline.disarm()
	if err == nil {
		l.counters.framesOut.Inc()
		l.counters.bytesOut.Add(float64(len(b)))
	} else if late && l.ctx.Err() == nil {
		// The library has closed the connection: the peer took nothing
		// for a whole WriteTimeout.
		return errWriteTimeout
	}
	return err
}

var errWriteTimeout = errors.New("relay: write timed out")

// uncork writes what the leg's writes since the last uncork left held,
// within the write timeout. A writer calls it when it has nothing more
// queued, before any wait but the socket's: what it wrote goes out then,
// and nothing the library writes from other goroutines meanwhile (a
// pong, a ping) is held past it.
func (l *leg) uncork() error {
	if !l.corked {
		return nil
	}
	l.corked = false
	l.deadline.arm(l.ctx, l.conn, l.relay.cfg.WriteTimeout)
	err := l.cc.uncork()
	if late := l.deadline.disarm(); err != nil && late && l.ctx.Err() == nil {
		return errWriteTimeout
	}
	return err
}

// flushOut writes the queued controls; it reports false when the leg is
// ending or a write failed.
func (l *leg) flushOut() bool {
	out, ending := l.takeOut()
	for _, b := range out {
		if err := l.write(b); err != nil {
			l.writeFailed(err)
			return false
		}
	}
	return !ending
}

// writeFailed records why the writer stopped.
func (l *leg) writeFailed(err error) {
	if errors.Is(err, errWriteTimeout) && l.role != attachwire.RoleHost {
		l.relay.metrics.backpressure.Inc()
		l.log.Info("relay: viewer too slow, closed", "err", err)
	}
	l.end(nil, websocket.StatusPolicyViolation, "write failed")
	l.cancel()
}

// finish is the writer's last act: the final error control, then the close
// handshake.
func (l *leg) finish() {
	defer l.deadline.stop()
	l.mu.Lock()
	ctl, code, why := l.endErr, l.endCode, l.endWhy
	l.mu.Unlock()
	if l.lane != nil {
		l.laneFinish(ctl)
		return
	}
	if l.ctx.Err() != nil {
		l.conn.CloseNow()
		return
	}
	if ctl != nil {
		if b, err := controlWire(*ctl); err == nil {
			l.write(b)
		}
	}
	if l.uncork() != nil {
		l.conn.CloseNow()
		return
	}
	l.conn.Close(code, why)
}

// tick waits for t's next tick and reports true, or false once the leg is
// ending: the one wait of the periodic jobs a leg runs beside its writer
// (the host's heartbeat), which stop when it ends.
func (l *leg) tick(t *time.Ticker) bool {
	select {
	case <-t.C:
		return true
	case <-l.closing:
	case <-l.ctx.Done():
	}
	return false
}

// member returns the leg as a presence member.
func (l *leg) member(driving bool) attachwire.Member {
	return attachwire.Member{UserID: l.userID, ConnID: l.jti, Role: l.role, Driving: driving, Name: l.name, Guest: l.guest}
}

// readFrame reads and decodes the next message. A text message or bytes
// that are not a frame end the leg (close 1003 or 1002); a read error
// (the peer went away, the leg was closed, a message over the read limit,
// which the WebSocket library closes with 1009) just ends the loop.
func (l *leg) readFrame() (attachwire.Frame, bool) {
	typ, b, err := l.conn.Read(l.ctx)
	if err != nil {
		return attachwire.Frame{}, false
	}
	l.heard()
	l.counters.framesIn.Inc()
	l.counters.bytesIn.Add(float64(len(b)))
	if typ != websocket.MessageBinary {
		l.relay.metrics.refusals.WithLabelValues("framing").Inc()
		l.end(&attachwire.ErrorControl{Code: attachwire.CodeFraming, Message: "binary frames only"},
			websocket.StatusUnsupportedData, "binary frames only")
		return attachwire.Frame{}, false
	}
	f, err := attachwire.DecodeFrame(b)
	if err != nil {
		l.framing(err.Error())
		return attachwire.Frame{}, false
	}
	return f, true
}

// isFraming reports whether err is a framing error (as opposed to the soft
// unknown-control one).
func isFraming(err error) bool {
	var fe *attachwire.FramingError
	return errors.As(err, &fe)
}

package mcpserver

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"log/slog"
	"sync"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/share"
	"github.com/ptyhost/ptyhost/termdriver"
)

// RelaySharer is the Sharer of `ptyhost mcp`: each session shared gets a
// room of its own (package share: an embedded relay on 127.0.0.1, a relay
// whose key it holds, or a relay in issuer mode), carried until the
// session ends or Close. Sharing a session again returns its links. A
// session in approval mode has its proposals announced in the room and
// its decisions taken from there.
type RelaySharer struct {
	// RelayURL, Key and Identity are share.Config's: empty RelayURL
	// starts an embedded relay per session.
	RelayURL string
	Key      ed25519.PrivateKey
	Identity string
	// Logger receives the carriers' logs; nil discards them.
	Logger *slog.Logger

	mu     sync.Mutex
	shared map[*termdriver.Session]*sharedSession
	wg     sync.WaitGroup
}

type sharedSession struct {
	sh     *share.Share
	links  ShareLinks
	cancel context.CancelFunc
}

// Share starts carrying s to a room, or returns the room's links when it
// already is.
func (rs *RelaySharer) Share(ctx context.Context, s *termdriver.Session, req ShareRequest) (ShareLinks, error) {
	rs.mu.Lock()
	defer rs.mu.Unlock()
	if ss, ok := rs.shared[s]; ok {
		return rs.linksFor(ss, s, req), nil
	}
	logger := rs.Logger
	if logger == nil {
		logger = slog.New(slog.DiscardHandler)
	}
	var up func(bool)
	sh, err := share.Start(share.Config{
		RelayURL: rs.RelayURL, Key: rs.Key, Identity: rs.Identity,
		OnRoom: func(c attachwire.Control) {
			if d, ok := c.(attachwire.Decision); ok {
				if g := s.Gate(); g != nil {
					g.Decide(d)
				}
			}
		},
		OnLink: func(ok bool) { up(ok) },
	})
	if err != nil {
		return ShareLinks{}, err
	}
	carryCtx, cancel := context.WithCancel(context.Background())
	// The relay forgets proposals when a host leg binds: the gate says
	// again what still waits, off the leg's reader.
	up = func(ok bool) {
		if g := s.Gate(); ok && g != nil {
			go g.Reannounce(carryCtx)
		}
	}
	if g := s.Gate(); g != nil {
		g.SetAnnounce(ctx, func(ctx context.Context, p attachwire.Proposal) error { return sh.Controls().Send(ctx, p) })
	}
	ss := &sharedSession{sh: sh, cancel: cancel}
	ss.links = ShareLinks{Watch: sh.Links.WatchLink, Drive: sh.Links.DriveLink}
	if ss.links.Watch == "" {
		ss.links = ShareLinks{
			Watch:       sh.Links.BrowserURL(sh.Links.PageViewerToken),
			Drive:       sh.Links.BrowserURL(sh.Links.PageDriverToken),
			AttachDrive: fmt.Sprintf("PTYHOST_TOKEN=%s %sptyhost attach --drive %s", sh.Links.DriverToken, sh.Links.KeyEnv(), sh.Links.AttachURL),
		}
	}
	if rs.shared == nil {
		rs.shared = make(map[*termdriver.Session]*sharedSession)
	}
	rs.shared[s] = ss
	rs.wg.Add(1)
	go func() {
		defer rs.wg.Done()
		if err := sh.Carry(carryCtx, s.Host().Agent(), logger); err != nil && carryCtx.Err() == nil {
			logger.Warn("mcp: sharing ended", "session", s.ID(), "err", err)
		}
		sh.Close()
		rs.mu.Lock()
		if rs.shared[s] == ss {
			delete(rs.shared, s)
		}
		rs.mu.Unlock()
	}()
	return rs.linksFor(ss, s, req), nil
}

// linksFor is what a share call returns: the drive links only when asked
// for, or when the session needs a person to approve its input (who must
// hold the pen to decide).
func (rs *RelaySharer) linksFor(ss *sharedSession, s *termdriver.Session, req ShareRequest) ShareLinks {
	l := ss.links
	if !req.Drive && s.Gate() == nil {
		l.Drive, l.AttachDrive = "", ""
	}
	return l
}

// Close stops carrying every session and waits for the carriers.
func (rs *RelaySharer) Close() {
	rs.mu.Lock()
	for _, ss := range rs.shared {
		ss.cancel()
	}
	rs.mu.Unlock()
	rs.wg.Wait()
}

package mcpserver

import (
	"context"
	"crypto/ed25519"
	"fmt"
	"log/slog"
	"os"
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
	// Unsealed turns off end-to-end encryption (share.Config.Unsealed):
	// the relay then reads the sessions it carries.
	Unsealed bool
	// Logger receives the carriers' logs; nil discards them.
	Logger *slog.Logger
	// Notify tells the person running the server where a session's
	// approver links are (`ptyhost mcp` writes it to its stderr, which
	// MCP clients show in their server log). Nil: nobody is told but the
	// file.
	Notify func(msg string)

	mu     sync.Mutex
	shared map[*termdriver.Session]*sharedSession
	wg     sync.WaitGroup
}

type sharedSession struct {
	sh     *share.Share
	links  ShareLinks
	cancel context.CancelFunc
	// approvers is the file holding the drive links of a session in
	// approval mode, which the agent is not given (approverLinks).
	approvers string
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
	var sh *share.Share // set before Carry calls the hooks
	sh, err := share.Start(share.Config{
		RelayURL: rs.RelayURL, Key: rs.Key, Identity: rs.Identity, Unsealed: rs.Unsealed,
		OnRoom: func(c attachwire.Control) {
			d, ok := c.(attachwire.Decision)
			g := s.Gate()
			if !ok || g == nil {
				return
			}
			if c, err := sh.OpenControl(d); err == nil {
				g.Decide(c.(attachwire.Decision))
			} else {
				logger.Warn("mcp: dropped a decision that failed its integrity check", "session", s.ID(), "err", err)
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
		g.SetAnnounce(ctx, sh.Announce)
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
	if s.Gate() != nil {
		if ss.approvers, err = rs.approverLinks(s, ss.links); err != nil {
			cancel()
			sh.Close()
			return ShareLinks{}, err
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
		// No room any more: proposals have nobody to reach, and say so
		// at once rather than wait out their time.
		if g := s.Gate(); g != nil {
			g.SetAnnounce(context.Background(), nil)
		}
		if ss.approvers != "" {
			os.Remove(ss.approvers)
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

// linksFor is what a share call returns: the drive links when asked for,
// except in approval mode, where they are the approver's: whoever holds
// the pen decides the proposals, so the agent gets the watch link and
// where the person finds theirs.
func (rs *RelaySharer) linksFor(ss *sharedSession, s *termdriver.Session, req ShareRequest) ShareLinks {
	l := ss.links
	if !req.Drive || ss.approvers != "" {
		l.Drive, l.AttachDrive = "", ""
	}
	l.ApproverLinks = ss.approvers
	return l
}

// approverLinks writes the drive links of a session in approval mode to a
// file only this user can read, and tells the person running the server
// where it is.
func (rs *RelaySharer) approverLinks(s *termdriver.Session, l ShareLinks) (string, error) {
	f, err := os.CreateTemp("", "ptyhost-approve-"+s.ID()+"-*.txt")
	if err != nil {
		return "", fmt.Errorf("mcp: writing the approver links: %w", err)
	}
	body := "Approve what the agent types into session " + s.ID() + ": open one of these (they are the pen).\n" +
		"browser: " + l.Drive + "\n"
	if l.AttachDrive != "" {
		body += "terminal: " + l.AttachDrive + "\n"
	}
	_, err = f.WriteString(body)
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", fmt.Errorf("mcp: writing the approver links: %w", err)
	}
	if rs.Notify != nil {
		rs.Notify("ptyhost mcp: session " + s.ID() + " waits for approval; its approver links are in " + f.Name())
	}
	return f.Name(), nil
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

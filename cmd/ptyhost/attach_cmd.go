package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"sync"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
	"github.com/ptyhost/ptyhost/internal/attachui"
	"github.com/ptyhost/ptyhost/internal/link"
	"github.com/ptyhost/ptyhost/internal/status"
	"github.com/ptyhost/ptyhost/viewer"
)

const attachHelp = `usage: ptyhost attach [flags] [URL]

Watches a session shared through a relay, in this terminal, and drives it
with --drive. URL is the room's address: its attach URL
(ws[s]://HOST/v1/rooms/ID), the same with http[s]://, or the room's browser
page (http[s]://HOST/v1/rooms/ID/view). The screen is painted from the
session's snapshot and then follows its output, through a sanitizer:
nothing the program prints can make this terminal answer, copy or get
stuck. A drop is resumed where it left off.

Secrets never go on the command line, where ps shows them to every user:
a URL with a #fragment (where a link carries its token) is refused as an
argument. Give such a link instead
  - at the prompt: run 'ptyhost attach' without a URL, on a terminal, and
    paste it (it is not echoed);
  - with --link-file FILE (the file's first line);
  - in the PTYHOST_LINK environment variable.
The token (minted by 'ptyhost token') comes from, in this order:
--token-file FILE, the PTYHOST_TOKEN environment variable, or the link's
#token= fragment (which is never sent to the relay). A short link of a
relay in issuer mode (http[s]://HOST/s/ID#SECRET) carries an invite
instead, which attach exchanges at the relay for a token of its own.

Read-only by default; keys go to the session only while this terminal
holds the pen. The prefix key (Ctrl-] unless --prefix), then:
  g   take the pen (needs a driver token)
  r   give the pen back
  d   detach (the session goes on; the pen, if held, is given back)
  c   show or hide the session's recent commands with their exit status
      (a shell marks them: see 'ptyhost help shell-integration')
  y   approve the oldest input proposal waiting (the pen holder only)
  n   reject it
  e   edit it: a line editor on the panel, Enter sends, Esc cancels
  p   propose a line, with a link whose input needs approval ('ptyhost
      share --approve'): it is typed once the sharer or pen holder
      approves
  ?   show these keys
  Ctrl-]  (the prefix again) send the prefix itself
The terminal is in raw mode only while it holds the pen: then Ctrl-C,
like every key, goes to the session. While watching, Ctrl-C detaches
(status 0), as Ctrl-] d does. Pen, presence and room changes show for a
moment on the bottom row; a lost connection or host stays there until it
is back. Input proposals (an agent's typing that waits for a person's
approval, see 'ptyhost help mcp') show in a panel above the status line.

Flags:
  --link-file FILE   read the room's link from FILE
  --token-file FILE  read the token from FILE
  --drive            ask for the pen on joining (a driver token)
  --name NAME        the name a short link (…/s/ID#SECRET, an invite) is
                     redeemed under, shown to the others (default $USER)
  --prefix KEY       the prefix key, as ^X (Ctrl-X) or one character
                     (default ^])

Exit status: the session's own once it ended, also when it had ended
before attach joined (0 if the relay did not say how); 0 on detach (Ctrl-] d,
or Ctrl-C while watching); 2 for a usage error; 69 when the relay cannot be
reached; 77 when the relay refuses the token or the room; 128 + signal
number when a signal (SIGINT, SIGTERM, SIGHUP) stops it.
`

// Exit codes of attach besides the session's own (sysexits.h's).
const (
	exitUnreachable = 69 // EX_UNAVAILABLE
	exitRefused     = 77 // EX_NOPERM
)

type attachOptions struct {
	url       string // "" when the link comes from elsewhere
	linkFile  string
	tokenFile string
	name      string // the name a short link is redeemed under
	drive     bool
	prefix    byte
}

type prefixFlag struct{ b *byte }

func (p prefixFlag) String() string { return "" }

func (p prefixFlag) Set(v string) error {
	switch {
	case len(v) == 2 && v[0] == '^' && v[1] >= '@' && v[1] <= '_':
		*p.b = v[1] - '@'
	case len(v) == 2 && v[0] == '^' && v[1] >= 'a' && v[1] <= 'z':
		*p.b = v[1] - 'a' + 1
	case len(v) == 1 && v[0] > ' ' && v[0] < 0x7f:
		*p.b = v[0]
	default:
		return errors.New("want ^X (a control key) or one printable ASCII character")
	}
	return nil
}

func parseAttach(args []string) (attachOptions, error) {
	o := attachOptions{prefix: attachui.DefaultPrefix}
	fs := newFlagSet("attach")
	fs.StringVar(&o.linkFile, "link-file", "", "")
	fs.StringVar(&o.tokenFile, "token-file", "", "")
	fs.BoolVar(&o.drive, "drive", false, "")
	fs.StringVar(&o.name, "name", "", "")
	fs.Var(prefixFlag{&o.prefix}, "prefix", "")
	rest, _, err := parseArgs(fs, args, true)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return o, err
	case err != nil:
		return o, &usageError{cmd: "attach", err: err}
	case len(rest) > 1:
		return o, usagef("attach", "want at most one URL, got %d arguments", len(rest))
	case len(rest) == 1 && o.linkFile != "":
		return o, usagef("attach", "a URL and --link-file: give one")
	case len(rest) == 1:
		o.url = rest[0] // attachToken refuses one holding a secret
	}
	return o, nil
}

// attachToken finds the room's link (package link's sources: the URL,
// --link-file, PTYHOST_LINK, or prompt, nil without a terminal), the
// token (--token-file, PTYHOST_TOKEN, or the link's #token= fragment)
// and a sealed room's key (PTYHOST_KEY, or the link's). It returns the
// room's WebSocket URL.
func attachToken(o attachOptions, prompt func() (string, error)) (tok, room string, key *seal.Key, err error) {
	l, err := link.From(link.Sources{Cmd: "attach", Arg: o.url, File: o.linkFile, Env: os.Getenv(link.EnvVar), Prompt: prompt})
	if err != nil {
		return "", "", nil, usagef("attach", "%s", strings.TrimPrefix(err.Error(), "link: "))
	}
	if l.Room == "" {
		return "", "", nil, usagef("attach", "%s names a relay, not a room: want …/v1/rooms/ID", link.Redacted(l.Base.String()))
	}
	if env := strings.TrimSpace(os.Getenv(link.KeyEnvVar)); env != "" {
		l.Key = env
	}
	if key, err = l.RoomKey(); err != nil {
		return "", "", nil, usagef("attach", "the room key (%s or the link's) is not one: 43 characters of base64url", link.KeyEnvVar)
	}
	tok, room, err = attachTokenOf(o, l)
	return tok, room, key, err
}

// attachTokenOf is attachToken's token, for the link l.
func attachTokenOf(o attachOptions, l link.Link) (tok, room string, err error) {
	switch {
	case o.tokenFile != "":
		b, err := os.ReadFile(o.tokenFile)
		if err != nil {
			return "", "", usagef("attach", "--token-file: %v", err)
		}
		tok = strings.TrimSpace(string(b))
	case os.Getenv("PTYHOST_TOKEN") != "":
		tok = strings.TrimSpace(os.Getenv("PTYHOST_TOKEN"))
	case l.Invite != "":
		if tok, err = redeemLink(l, guestName(o.name)); err != nil {
			return "", "", err
		}
	default:
		tok = l.Token()
	}
	if tok == "" {
		return "", "", usagef("attach", "no token: use --token-file, PTYHOST_TOKEN, or a link with #token=")
	}
	return tok, l.RoomURL(), nil
}

func attachCmd(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	o, err := parseAttach(args)
	if err != nil {
		return err
	}
	fd, ok := fileFd(stdin)
	terminal := ok && isTerminal(fd)
	var prompt func() (string, error)
	if terminal {
		prompt = func() (string, error) {
			return readHidden(ctx, fd, stdout, "Paste the room's link (it is not shown): ")
		}
	}
	tok, room, key, err := attachToken(o, prompt)
	if err != nil {
		return err
	}
	if !terminal {
		return usagef("attach", "stdin is not a terminal")
	}
	cols, rows, _, _, err := termSize(fd)
	if err != nil {
		cols, rows = 80, 24
	}
	a := &attacher{fd: fd, out: stdout, prefix: o.prefix, ready: make(chan struct{}), detach: make(chan struct{})}
	a.st.Link = status.Connected // Dial returns once a leg is up
	role := attachwire.RoleViewer
	if o.drive {
		role = attachwire.RoleDriver
	}
	c, err := viewer.Dial(ctx, viewer.Config{
		URL: room, Token: tok, Role: role, Key: key,
		Viewport: attachwire.Viewport{Cols: uint32(cols), Rows: uint32(rows)},
		OnEvent:  a.event,
	})
	switch {
	case errors.Is(err, viewer.ErrRefused):
		return &exitStatus{code: exitRefused, msg: "attach: " + err.Error()}
	case errors.Is(err, viewer.ErrUnreachable):
		return &exitStatus{code: exitUnreachable, msg: "attach: " + err.Error()}
	case errors.Is(err, viewer.ErrConfig):
		return usagef("attach", "%v", err)
	case err != nil:
		return fmt.Errorf("attach: %w", err)
	}
	a.st.ConnID = c.ConnID()
	a.disp = attachui.NewDisplay(stdout, c.Mirror, cols, rows)
	defer func() {
		a.stopEvents() // the Client's goroutine may wait in event
		c.Close()
	}()
	return a.run(ctx, c)
}

// attacher is one attach: the terminal, the viewer Client and the display.
type attacher struct {
	fd     int
	out    io.Writer
	prefix byte
	disp   *attachui.Display
	raw    *rawTerm
	ready  chan struct{} // the terminal is set up: events may paint
	detach chan struct{}
	// inputCtx ends a wait for the relay to acknowledge input (the input
	// pump's): canceled before the pump is stopped. waited: the last
	// input had to wait, and the status line said so; both the pump's.
	inputCtx context.Context
	waited   bool
	// st is what the status line says of the room; event's.
	st status.State

	mu       sync.Mutex
	driving  bool
	detached bool
	cmds     attachui.CommandLog // the session's recent commands, from its command marks
	cmdsUp   bool                // the commands panel shows
	props    attachui.Proposals  // input proposals waiting for the pen holder
	edit     *attachui.LineEdit  // the proposal being edited, or nil
	restored sync.Once
}

func (a *attacher) run(ctx context.Context, c *viewer.Client) (err error) {
	raw, err := makeRaw(a.fd)
	if err != nil {
		return fmt.Errorf("attach: %w", err)
	}
	a.raw = raw
	defer a.restore()
	if err := watchMode(a.fd); err != nil {
		return fmt.Errorf("attach: %w", err)
	}
	keys := attachui.Keys{Prefix: a.prefix}
	ictx, icancel := context.WithCancel(ctx)
	defer icancel()
	a.inputCtx = ictx
	pump, err := startInputPump(a.fd, func(p []byte) error {
		keys.Watching = !a.isDriving()
		a.keys(c, &keys, p)
		return nil
	}, a.guard)
	if err != nil {
		return fmt.Errorf("attach: %w", err)
	}
	defer func() {
		a.restore()
		icancel() // the pump may wait in InputWait
		pump.Stop()
	}()
	winch := make(chan os.Signal, 1)
	if sig := resizeSignal(); sig != nil {
		signal.Notify(winch, sig)
		defer signal.Stop(winch)
	}
	if scr, seq, ok := c.Mirror(); ok {
		a.disp.Snapshot(&scr, seq)
	}
	close(a.ready)
	tick := time.NewTicker(250 * time.Millisecond)
	defer tick.Stop()
	for {
		select {
		case <-ctx.Done():
			return interrupted(ctx)
		case <-a.detach:
			releasePen(c)
			return nil
		case <-c.Done():
			return a.ended(c)
		case <-winch:
			if cols, rows, _, _, err := termSize(a.fd); err == nil {
				a.disp.SetSize(cols, rows)
				c.Resize(cols, rows)
			}
		case now := <-tick.C:
			a.disp.Tick(now)
		}
	}
}

// releasePen gives the pen back on detach, so that another driver can
// take it at once instead of after the relay's grace period for a
// holder that dropped; bounded by a short wait for the relay's answer.
func releasePen(c *viewer.Client) {
	if !c.Pen().Mine || c.Release() != nil {
		return
	}
	deadline := time.Now().Add(2 * time.Second)
	for c.Pen().Mine && time.Now().Before(deadline) {
		select {
		case <-c.Done():
			return
		case <-time.After(20 * time.Millisecond):
		}
	}
}

// ended turns the Client's end into attach's result.
func (a *attacher) ended(c *viewer.Client) error {
	if err := c.Err(); err != nil {
		if errors.Is(err, viewer.ErrRefused) {
			return &exitStatus{code: exitRefused, msg: "attach: " + err.Error()}
		}
		return fmt.Errorf("attach: %w", err)
	}
	ex, ok := c.Exit()
	if !ok {
		// A relay that serves a late joiner only the final screen, without
		// the Exit frame (ours sends both).
		return &exitStatus{code: exitOK, msg: "attach: the session had ended before attach joined; the relay did not say how"}
	}
	if ex.Code != 0 {
		return &exitStatus{code: int(ex.Code)}
	}
	return nil
}

// event paints what the Client reports; it runs on the Client's goroutine.
func (a *attacher) event(ev viewer.Event) {
	select {
	case <-a.ready:
	case <-a.detach:
		return
	}
	d := a.disp
	switch ev.Kind {
	case viewer.EventSnapshot:
		d.Snapshot(ev.Screen, ev.Seq)
	case viewer.EventOutput:
		d.Output(ev.Seq, ev.Data)
	case viewer.EventResize:
		d.Resync()
	case viewer.EventPen:
		a.setDriving(ev.Pen.Mine)
		gained := ev.Pen.Mine && !a.st.PenMine
		a.st.PenKnown, a.st.PenMine = true, ev.Pen.Mine
		a.st.PenUser, a.st.PenConn = ev.Pen.HolderUserID, ev.Pen.HolderConnID
		d.SetState(a.st)
		if gained {
			d.Message("keys go to the session (Ctrl-] r gives the pen back)")
		}
		a.mu.Lock()
		waiting := a.props.Len() > 0
		a.mu.Unlock()
		if waiting {
			a.showProposals() // its title says who may decide
		}
	case viewer.EventPresence:
		a.st.Members = ev.Members
		d.SetState(a.st)
	case viewer.EventRoom:
		a.st.Room = ev.Room
		d.SetState(a.st)
	case viewer.EventMarker:
		a.mu.Lock()
		a.cmds.Mark(ev.Text)
		up := a.cmdsUp
		a.mu.Unlock()
		if up {
			a.showCommands()
		}
	case viewer.EventProposal:
		a.proposal(*ev.Proposal)
	case viewer.EventNotice:
		d.Message("relay: " + string(ev.Code) + ": " + ev.Text)
	case viewer.EventConnection:
		switch {
		case ev.Connected:
			a.st.Link, a.st.Lane = status.Connected, ev.Lane
		case ev.Err != nil:
			a.st.Link = status.Reconnecting
		}
		d.SetState(a.st)
	}
}

// isDriving reports whether the terminal holds the pen (is in raw mode).
func (a *attacher) isDriving() bool {
	a.mu.Lock()
	defer a.mu.Unlock()
	return a.driving
}

// setDriving switches the terminal between raw mode (holding the pen) and
// watch mode.
func (a *attacher) setDriving(on bool) {
	a.mu.Lock()
	defer a.mu.Unlock()
	if a.detached || a.driving == on {
		return
	}
	a.driving = on
	if on {
		rawMode(a.fd)
	} else {
		watchMode(a.fd)
	}
	a.disp.SetDriving(on)
}

// keys handles one read of the terminal: prefix commands, and the rest
// for the session while driving.
func (a *attacher) keys(c *viewer.Client, k *attachui.Keys, p []byte) {
	if a.editing(c, p) {
		return
	}
	send := func(b []byte) {
		if len(b) == 0 {
			return
		}
		err := c.Input(b)
		if errors.Is(err, viewer.ErrInputFull) {
			// A paste past what may await the relay's ack: wait for acks
			// rather than cut it (the terminal holds what comes meanwhile,
			// so the person feels the wait, and is told why).
			if !a.waited {
				a.disp.Message("input waits for the relay to acknowledge what went before")
			}
			a.waited = true
			err = c.InputWait(a.inputCtx, b)
		} else {
			a.waited = false
		}
		switch {
		case errors.Is(err, viewer.ErrNoPen) && c.Proposer():
			a.disp.Message("your input needs approval: Ctrl-] p proposes a line")
		case errors.Is(err, viewer.ErrNoPen):
			a.disp.Message("read-only: Ctrl-] g takes the pen, Ctrl-] d detaches")
		}
	}
	rest := k.Feed(nil, p, func(b []byte, cmd attachui.Command) []byte {
		send(b)
		a.command(c, cmd)
		return b[:0]
	})
	send(rest)
}

func (a *attacher) command(c *viewer.Client, cmd attachui.Command) {
	switch cmd {
	case attachui.CmdGrab:
		if err := c.Grab(); errors.Is(err, viewer.ErrViewerRole) {
			a.disp.Message("this token is read-only: it cannot take the pen")
		}
	case attachui.CmdRelease:
		c.Release()
	case attachui.CmdDetach:
		a.stopEvents()
	case attachui.CmdCommands:
		a.mu.Lock()
		a.cmdsUp = !a.cmdsUp
		up := a.cmdsUp
		a.mu.Unlock()
		if up {
			a.showCommands()
		} else {
			a.disp.HidePanel()
		}
	case attachui.CmdApprove, attachui.CmdReject, attachui.CmdEdit:
		a.decide(c, cmd)
	case attachui.CmdPropose:
		a.propose(c)
	case attachui.CmdHelp, attachui.CmdUnknown:
		a.disp.Message("Ctrl-] then: g take the pen, r release it, c commands, y/n/e approve/reject/edit a proposal, p propose a line, d detach, Ctrl-] send Ctrl-]")
	}
}

// maxCommandRows bounds the commands panel: enough to see what just
// happened without covering the session.
const maxCommandRows = 10

// showCommands draws the commands panel from the log.
func (a *attacher) showCommands() {
	a.mu.Lock()
	lines := a.cmds.Lines(1<<16, maxCommandRows)
	n := a.cmds.Len()
	a.mu.Unlock()
	title := "recent commands (Ctrl-] c hides)"
	if n == 0 {
		title = "no commands yet: the shell marks them with `ptyhost shell-integration` (Ctrl-] c hides)"
	}
	a.disp.ShowPanel(title, lines)
}

// restore stops painting, writes the restore trailer, drops what the
// terminal sent that nobody read, and puts the terminal's settings back.
// Once.
func (a *attacher) restore() {
	a.restored.Do(func() {
		a.stopEvents()
		a.disp.Close()
		io.WriteString(a.out, restoreTrailer)
		flushInput(a.fd)
		a.raw.Restore()
	})
}

// stopEvents ends painting and the run loop: detach, or the end of run.
// Once.
func (a *attacher) stopEvents() {
	a.mu.Lock()
	defer a.mu.Unlock()
	if !a.detached {
		a.detached = true
		close(a.detach)
	}
}

// guard restores the terminal if the calling goroutine panics.
func (a *attacher) guard() {
	if r := recover(); r != nil {
		a.restore()
		panic(r)
	}
}

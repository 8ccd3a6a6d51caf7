package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync/atomic"
	"time"

	"github.com/ptyhost/ptyhost/approval"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/attachui"
	"github.com/ptyhost/ptyhost/internal/share"
	"github.com/ptyhost/ptyhost/token"
)

const shareHelp = `usage: ptyhost share [flags] -- CMD [ARGS...]

Runs CMD in this terminal exactly as 'ptyhost run' does, and shares it
through a relay: others watch it, or drive it, with 'ptyhost attach' or a
browser. Without --relay, share starts a relay of its own on 127.0.0.1 with
a fresh key held in memory, so the links work on this machine only and end
with this command.

Before CMD takes the screen, share prints the links: a watch and a drive
'ptyhost attach' line (the token in PTYHOST_TOKEN, never a plain argument
that shows in ps) and a watch and a drive browser address (the token in
the #fragment, which a browser never sends to a server). They are then
scrolled into this terminal's scrollback. Each link holds its own token,
which the relay admits for one connection at a time (a dropped one may
come back); anyone holding a link can use it until it expires: give drive
links only to people who may type.

The room is end-to-end encrypted unless --no-e2e: share makes a room key
that every link carries (in its #fragment, after the token; a short link
after a dot; PTYHOST_KEY for 'ptyhost attach'), and the relay passes the
session without being able to read it: not the output, not the screen,
not what anyone types. It still sees who is present, when, and how much
(docs/security.md). Whoever holds a link holds the key.

With --relay, share first checks that the relay answers and admits the
key: if it cannot be reached, or is not a relay, share says so in one line
and exits 69; if it refuses the key, 77; the program does not start. A
relay lost later shows "relay unreachable: reconnecting" on the status
line while share redials; one that answers but no longer knows the room
(a relay in issuer mode restarted without --issuer-state) or no longer
accepts the key ends the sharing, saying why, and the program goes on.

While sharing, share's status line (over this terminal's bottom row, for a
few seconds) says who joins or leaves and who takes the pen, by name:
a name a guest typed is marked "(guest)". The prefix key (Ctrl-] unless
--prefix), then:
  w       who is here: names, roles, who drives
  k       remove one participant (a number picks): its link's token is
          refused from then on
  x       revoke a link: nobody more joins with it, its holder is closed
  p       take the pen back
  o       read-only on or off: while on, nobody else may type
  e       a new room key: the old links stop working at once; the new
          ones (same tokens, new key) are written to a file only you can
          read, which the status line names
  y       approve the oldest input proposal waiting (with --approve)
  n       reject it
  s       stop sharing; the program goes on here
  ?       these keys
  Ctrl-]  (the prefix again) send the prefix itself
When the pen comes back (released, taken, or its holder gone), the
session takes this terminal's size again at once.

With --approve, the drive links type nothing themselves: what their
holders type is a proposal that waits, in a panel here and in every
viewer's, until you approve it (Ctrl-] y) or reject it (n), or until
--approval-timeout (2m) passes. Only then is it written to CMD. Each
outcome is a marker in the session's stream (and its recording), naming
who proposed and who decided.

When CMD exits, viewers keep seeing its final screen for the
--final-screen window, which share says, and Ctrl-C ends at once. share
exits with CMD's status either way.

Flags (besides run's: --size, --record, --scrollback, --ring, --backend):
  --relay URL        the relay to share through (ws://, wss://, http:// or
                     https://HOST[:PORT]). Without --key it is a relay in
                     issuer mode: your SSH key logs you in (ssh-agent, else
                     ~/.ssh/id_ed25519, id_ecdsa or id_rsa, or --identity),
                     the relay makes the room, and the links are two short
                     ones, watch and drive, that admit many people each.
                     Exit 69 when the relay cannot be reached or is not
                     one, 77 when it refuses the key, before CMD starts
  --key FILE         the private key whose public half the relay accepts
                     ('ptyhost keygen'); it mints the host's tokens and the
                     links
  --identity FILE    the SSH private key to log in to a relay in issuer
                     mode with (one without a passphrase; otherwise add it
                     to ssh-agent)
  --port N           the embedded relay's port on 127.0.0.1 (default: any
                     free port)
  --room ID          the room, which is the session id: letters, digits,
                     - _ . ~ (default: share- and 12 random hex digits)
  --org O            the tokens' organization (default "default")
  --ttl DURATION     how long the links admit new connections (default
                     24h, at most 168h); a viewer reuses its link's token
                     to reconnect, so make it outlast the session. The
                     host's own tokens are minted for each dial
  --final-screen DURATION
                     how long the final screen stays served after CMD
                     exits (default 60s)
  --relay-record     ask the relay to record the room (one run with
                     --record-dir records rooms that ask)
  --prefix KEY       the prefix key, as ^X (Ctrl-X) or one character
                     (default ^])
  --no-e2e           do not encrypt end to end: the relay reads the
                     session as it passes (links then carry no key)
  --approve          the drive links propose what they type: you approve
                     it before it reaches CMD (above)
  --approval-timeout DURATION
                     how long a proposal waits for a decision (default 2m,
                     at most 1h)
`

type shareOptions struct {
	run     runOptions
	keyFile string
	prefix  byte
	cfg     share.Config
}

func parseShare(args []string) (shareOptions, error) {
	o := shareOptions{prefix: attachui.DefaultPrefix}
	fs := newFlagSet("share")
	addRunFlags(fs, &o.run)
	fs.Var(prefixFlag{&o.prefix}, "prefix", "")
	fs.StringVar(&o.cfg.RelayURL, "relay", "", "")
	fs.StringVar(&o.keyFile, "key", "", "")
	fs.StringVar(&o.cfg.Identity, "identity", "", "")
	fs.Var(intFlag{&o.cfg.Port}, "port", "")
	fs.StringVar(&o.cfg.Room, "room", "", "")
	fs.StringVar(&o.cfg.Org, "org", "", "")
	o.cfg.LinkTTL = share.DefaultLinkTTL
	fs.Var(durationFlag{&o.cfg.LinkTTL}, "ttl", "")
	fs.Var(durationFlag{&o.cfg.FinalScreenWindow}, "final-screen", "")
	fs.BoolVar(&o.cfg.RelayRecord, "relay-record", false, "")
	fs.BoolVar(&o.cfg.Unsealed, "no-e2e", false, "")
	fs.BoolVar(&o.cfg.Approve, "approve", false, "")
	fs.Var(durationFlag{&o.cfg.ApprovalTimeout}, "approval-timeout", "")
	if err := parseRunCommand("share", fs, args, &o.run); err != nil {
		return o, err
	}
	switch {
	case o.cfg.RelayURL == "" && o.keyFile != "":
		return o, usagef("share", "--key goes with --relay; the embedded relay makes its own key")
	case o.cfg.RelayURL != "" && o.cfg.Port != 0:
		return o, usagef("share", "--port is for the embedded relay, not --relay")
	case o.cfg.LinkTTL < time.Second || o.cfg.LinkTTL > share.MaxLinkTTL:
		return o, usagef("share", "--ttl must be in 1s..%v, got %v", share.MaxLinkTTL, o.cfg.LinkTTL)
	case o.cfg.FinalScreenWindow < 0:
		return o, usagef("share", "--final-screen must not be negative")
	case o.cfg.ApprovalTimeout < 0 || o.cfg.ApprovalTimeout > approval.MaxTimeout:
		return o, usagef("share", "--approval-timeout must be in 0..%v", approval.MaxTimeout)
	case o.cfg.ApprovalTimeout != 0 && !o.cfg.Approve:
		return o, usagef("share", "--approval-timeout goes with --approve")
	}
	return o, nil
}

func shareCmd(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	o, err := parseShare(args)
	if err != nil {
		return err // flag.ErrHelp too: run prints the help
	}
	if o.keyFile != "" {
		if o.cfg.Key, err = token.ReadPrivateKeyFile(o.keyFile); err != nil {
			return usagef("share", "--key: %s", strings.TrimPrefix(err.Error(), "token: "))
		}
	}
	o.cfg.Epoch = uint64(time.Now().UnixMilli()) // a later share of the room supersedes this one
	// ui is set before Carry starts, so before the hooks are called.
	var ui *shareUI
	o.cfg.OnRoom = func(c attachwire.Control) { ui.console.Room(c) }
	o.cfg.OnLink = func(up bool) { ui.console.Link(up) }
	o.cfg.OnProposal = func(p attachwire.Proposal) { ui.console.Proposal(p) }
	sh, err := share.Start(o.cfg)
	switch {
	case errors.Is(err, share.ErrConfig):
		return usagef("share", "%s", strings.TrimPrefix(err.Error(), "share: "))
	case errors.Is(err, share.ErrUnreachable):
		return &exitStatus{code: exitUnreachable, msg: "ptyhost " + err.Error()}
	case errors.Is(err, share.ErrRefused):
		return &exitStatus{code: exitRefused, msg: "ptyhost " + err.Error()}
	case err != nil:
		return err
	}
	defer sh.Close()
	// Before the program starts: a relay that is down, is no relay, or
	// refuses the key is said in one line, and the program never runs.
	switch err := sh.Probe(ctx); {
	case errors.Is(err, share.ErrRefused):
		return &exitStatus{code: exitRefused, msg: err.Error()}
	case errors.Is(err, share.ErrUnreachable):
		return &exitStatus{code: exitUnreachable, msg: err.Error()}
	case err != nil:
		return err
	}
	a, err := spawnAttached("share", o.run, stdin, stdout, o.cfg.Epoch)
	if err != nil {
		return err
	}
	_, rows, _, _, _ := termSize(a.fd)
	writeLinks(stdout, sh.Links, attachProgram(), rows)

	carryCtx, stopCarry := context.WithCancel(ctx)
	ui = newShareUI(a, sh, o.prefix, stopCarry)
	defer ui.close()
	carried := make(chan error, 1)
	var programDone atomic.Bool
	go func() {
		err := sh.Carry(carryCtx, a.sess.Agent(), nil)
		if err != nil && carryCtx.Err() == nil && !programDone.Load() {
			// Sharing ended on its own while the program runs: say why
			// now, not only when the program exits (then afterShare
			// says it, below the program's last screen).
			ui.console.Stopped(share.StopReason(err))
		}
		carried <- err
	}()
	defer stopCarry()
	result := a.run(ctx)
	programDone.Store(true)
	a.reportRecording()
	return afterShare(ctx, stdout, result, carried, stopCarry, sh.FinalScreenWindow())
}

// afterShare waits, once CMD has exited, for the final-screen window to be
// served, saying so, unless Ctrl-C cuts it short; it stops and joins the
// carrier, and returns CMD's result.
func afterShare(ctx context.Context, w io.Writer, result error, carried <-chan error, stop func(), window time.Duration) error {
	var carryErr error
	select {
	case carryErr = <-carried: // sharing had already stopped
	default:
		if ctx.Err() == nil {
			fmt.Fprintf(w, "ptyhost share: the program exited; viewers see its final screen for %v more.\nCtrl-C ends sharing now.\n", window)
			select {
			case carryErr = <-carried:
				stop()
				return reportCarry(w, result, carryErr)
			case <-ctx.Done():
			}
		}
		stop()
		carryErr = <-carried
	}
	if ctx.Err() != nil && errors.Is(carryErr, context.Canceled) {
		carryErr = nil
	}
	return reportCarry(w, result, carryErr)
}

// reportCarry says why sharing stopped, if it failed, and returns result.
func reportCarry(w io.Writer, result, carryErr error) error {
	if carryErr != nil && !errors.Is(carryErr, context.Canceled) {
		fmt.Fprintf(w, "ptyhost share: sharing stopped: %s\n", share.StopReason(carryErr))
	}
	return result
}

// attachProgram is how the attach lines name ptyhost: "ptyhost" when that
// is this program on PATH, else this program's path.
func attachProgram() string {
	self, err := os.Executable()
	if err != nil {
		return "ptyhost"
	}
	self, _ = filepath.EvalSymlinks(self)
	if p, err := exec.LookPath("ptyhost"); err == nil {
		if p, err = filepath.EvalSymlinks(p); err == nil && p == self {
			return "ptyhost"
		}
	}
	return shellWord(self)
}

// shellWord quotes s for a POSIX shell when it needs it.
func shellWord(s string) string {
	if s != "" && strings.Trim(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-_./+:@%") == "" {
		return s
	}
	return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'"
}

// writeLinks prints the links, then scrolls them into the terminal's
// scrollback (rows newlines), where the program's first paint, which
// clears the screen, leaves them.
func writeLinks(w io.Writer, l share.Links, prog string, rows int) {
	if l.WatchLink != "" {
		writeShortLinks(w, l, prog, rows)
		return
	}
	where := "on the relay " + l.AttachURL
	if l.Embedded {
		where = "on a relay inside this ptyhost (this machine only, until it exits)"
	}
	fmt.Fprintf(w, "ptyhost share: room %s, %s\n\n", l.Room, where)
	fmt.Fprintf(w, "Watch in a terminal:\n  PTYHOST_TOKEN=%s %s%s attach %s\n", l.ViewerToken, l.KeyEnv(), prog, l.AttachURL)
	fmt.Fprintf(w, "Drive in a terminal:\n  PTYHOST_TOKEN=%s %s%s attach --drive %s\n", l.DriverToken, l.KeyEnv(), prog, l.AttachURL)
	fmt.Fprintf(w, "Watch in a browser:\n  %s\n", l.BrowserURL(l.PageViewerToken))
	fmt.Fprintf(w, "Drive in a browser:\n  %s\n\n", l.BrowserURL(l.PageDriverToken))
	fmt.Fprintf(w, "Each link serves one viewer at a time until %s. Give drive links only to people who may type.\n",
		l.Expires.Local().Format("2006-01-02 15:04 MST"))
	fmt.Fprint(w, "(These lines stay in your terminal's scrollback.)\n")
	if rows > 0 {
		io.WriteString(w, strings.Repeat("\n", rows))
	}
}

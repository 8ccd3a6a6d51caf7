package main

import (
	"context"
	"errors"
	"flag"
	"io"
	"regexp"
	"strings"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ptyhost/ptyhost/approval"
	"github.com/ptyhost/ptyhost/internal/mcpserver"
	"github.com/ptyhost/ptyhost/internal/version"
	"github.com/ptyhost/ptyhost/termdriver"
	"github.com/ptyhost/ptyhost/token"
)

const mcpHelp = `usage: ptyhost mcp [flags]

Serves the Model Context Protocol on stdin and stdout, so that an agent
can run interactive programs (shells, REPLs, editors, TUIs) in real
terminals: start one, read its screen as text, type text and keys, wait
for a pattern, for quiet or for the exit, read all it printed as plain
text, resize, stop, list. The tools are described in docs/agents.md.
Screens already sent are never repeated. When the client disconnects, or
on SIGTERM, every program started is stopped.

Add it to an MCP client's configuration:

  {"mcpServers": {"ptyhost": {"command": "ptyhost", "args": ["mcp"]}}}

The share tool gives a session a room, so that a person watches it live
in a browser (or 'ptyhost attach'): on an embedded relay on 127.0.0.1 by
default, or on --relay.

Approval mode holds what the agent types until a person who holds the
pen approves, edits or rejects it, in the browser page or in 'ptyhost
attach'; the agent's type call returns the outcome. --approve puts every
session in it; an agent can put a session in it (start's approval), never
take one out. Every outcome is a marker in the session's stream.

Flags:
  --max-sessions N        sessions held at once, running or exited and not
                          yet stopped (default 64)
  --approve               every session's input waits for approval
  --auto-approve REGEXP   input that this RE2 expression matches whole is
                          typed at once (repeatable), e.g. 'ls( -l)?\r'
  --approval-timeout D    how long a proposal waits (default 2m, at most 1h)
  --relay URL             share on this relay instead of an embedded one
  --key FILE              with --relay: the token signing key it accepts
                          (without: a relay in issuer mode, logged in to
                          with your SSH key)
  --identity FILE         the SSH key for a relay in issuer mode
`

func mcpCmd(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	maxSessions := termdriver.DefaultMaxSessions
	var appr mcpserver.Approval
	var rules []string
	sharer := &mcpserver.RelaySharer{}
	var keyFile string
	fs := newFlagSet("mcp")
	fs.Var(intFlag{&maxSessions}, "max-sessions", "")
	fs.BoolVar(&appr.All, "approve", false, "")
	fs.Func("auto-approve", "", func(s string) error { rules = append(rules, s); return nil })
	fs.Var(durationFlag{&appr.Timeout}, "approval-timeout", "")
	fs.StringVar(&sharer.RelayURL, "relay", "", "")
	fs.StringVar(&keyFile, "key", "", "")
	fs.StringVar(&sharer.Identity, "identity", "", "")
	rest, _, err := parseArgs(fs, args, true)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return err
	case err != nil:
		return &usageError{cmd: "mcp", err: err}
	case len(rest) > 0:
		return usagef("mcp", "unexpected argument %q", rest[0])
	case maxSessions < 1 || maxSessions > 4096:
		return usagef("mcp", "--max-sessions %d is out of range 1..4096", maxSessions)
	case appr.Timeout < 0 || appr.Timeout > approval.MaxTimeout:
		return usagef("mcp", "--approval-timeout must be in 0..%v", approval.MaxTimeout)
	case sharer.RelayURL == "" && keyFile != "":
		return usagef("mcp", "--key goes with --relay; the embedded relay makes its own key")
	}
	for _, r := range rules {
		re, err := regexp.Compile(r)
		if err != nil {
			return usagef("mcp", "--auto-approve %q: %v", r, err)
		}
		appr.AutoApprove = append(appr.AutoApprove, re)
	}
	if keyFile != "" {
		var err error
		if sharer.Key, err = token.ReadPrivateKeyFile(keyFile); err != nil {
			return usagef("mcp", "--key: %s", strings.TrimPrefix(err.Error(), "token: "))
		}
	}
	defer sharer.Close()
	srv := mcpserver.New(mcpserver.Options{
		Version:  version.String(),
		Driver:   termdriver.Options{MaxSessions: maxSessions},
		Sharer:   sharer,
		Approval: appr,
	})
	t := &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}}
	return srv.Run(ctx, t)
}

// nopWriteCloser lets the transport close stdout without closing it: the
// process's exit does.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

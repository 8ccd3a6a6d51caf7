package main

import (
	"context"
	"errors"
	"flag"
	"io"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ptyhost/ptyhost/internal/mcpserver"
	"github.com/ptyhost/ptyhost/internal/version"
	"github.com/ptyhost/ptyhost/termdriver"
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

Flags:
  --max-sessions N   sessions held at once, running or exited and not yet
                     stopped (default 64)
`

func mcpCmd(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error {
	maxSessions := termdriver.DefaultMaxSessions
	fs := newFlagSet("mcp")
	fs.Var(intFlag{&maxSessions}, "max-sessions", "")
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
	}
	srv := mcpserver.New(mcpserver.Options{
		Version: version.String(),
		Driver:  termdriver.Options{MaxSessions: maxSessions},
	})
	t := &mcp.IOTransport{Reader: io.NopCloser(stdin), Writer: nopWriteCloser{stdout}}
	return srv.Run(ctx, t)
}

// nopWriteCloser lets the transport close stdout without closing it: the
// process's exit does.
type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

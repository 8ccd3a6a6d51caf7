package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"regexp"
	"sync"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ptyhost/ptyhost/termdriver"
)

// CursorMark is inserted into screen text where the cursor is.
const CursorMark = "▌"

// stopTimeout bounds how long Run waits for the sessions to end once the
// client has gone.
const stopTimeout = 15 * time.Second

// Options configures a Server. The zero value serves the core tools.
type Options struct {
	// Version is reported to clients as the server's version.
	Version string

	// Driver configures the sessions (their limit, the Spec template).
	Driver termdriver.Options

	// Sharer, when not nil, adds the share tool.
	Sharer Sharer

	// Approval is the person's say over what the agent types: sessions
	// in approval mode hold their input until someone decides.
	Approval Approval

	// Logger receives the server's diagnostics; nil discards them.
	Logger *slog.Logger
}

// Approval configures approval mode (package approval). It is the
// server's operator's, not the agent's: an agent can put a session in
// approval mode (start's approval), never take one out or add rules.
type Approval struct {
	// All puts every session in approval mode.
	All bool
	// AutoApprove are the rules whose whole-text matches are typed at
	// once (routine input such as `ls\r`).
	AutoApprove []*regexp.Regexp
	// Timeout is how long a proposal waits for a decision. Zero:
	// approval.DefaultTimeout.
	Timeout time.Duration
}

// Sharer publishes a session so that people can follow it live: it is the
// seam where a relay-backed share tool plugs in. Share is called from the
// share tool's handler, concurrently for different sessions; it returns
// once the session is reachable.
type Sharer interface {
	Share(ctx context.Context, s *termdriver.Session, req ShareRequest) (ShareLinks, error)
}

// ShareRequest is what the agent asked of the share tool.
type ShareRequest struct {
	// Drive asks for a link that can type too, not only watch.
	Drive bool
}

// ShareLinks is what the share tool returns: where people watch, and
// where they drive when it was asked for.
type ShareLinks struct {
	Watch string `json:"watch" jsonschema:"link that shows the session live, read-only"`
	Drive string `json:"drive,omitempty" jsonschema:"link that can also type into the session, and approve proposed input"`
	// AttachDrive is the terminal's way in, a command line with the
	// token in the environment; empty through a relay in issuer mode,
	// whose drive link `ptyhost attach` takes as it is.
	AttachDrive string `json:"attach_drive,omitempty" jsonschema:"command that drives (and approves) from a terminal"`
}

// Server is an MCP server over a termdriver.Driver. It is safe for
// concurrent use: the client's tool calls run concurrently.
type Server struct {
	opts   Options
	driver *termdriver.Driver
	mcp    *mcp.Server

	mu   sync.Mutex
	sent map[string]uint64 // per session, the seq of the last screen returned
	read map[string]int64  // per session, where the last output call ended
}

// New returns a Server with its tools registered and no session.
func New(opts Options) *Server {
	if opts.Logger == nil {
		opts.Logger = slog.New(slog.DiscardHandler)
	}
	if opts.Version == "" {
		opts.Version = "dev"
	}
	s := &Server{opts: opts, driver: termdriver.New(opts.Driver), sent: make(map[string]uint64), read: make(map[string]int64)}
	s.mcp = mcp.NewServer(&mcp.Implementation{Name: "ptyhost", Version: opts.Version}, &mcp.ServerOptions{
		Instructions: instructions,
		Logger:       opts.Logger,
	})
	s.addTools()
	return s
}

// instructions is what the server tells the client about itself.
const instructions = "Runs interactive programs (shells, REPLs, editors, TUIs) in real terminals. " +
	"start a program, then type text and keys and wait for what you expect on the screen. " +
	"Screens are text with the cursor shown as " + CursorMark + "; trailing blanks are trimmed. " +
	"A screen already sent is not sent again: results say \"unchanged since seq N\". " +
	"output returns everything a program printed as plain text, also what scrolled away. Stop sessions you are done with."

// Driver returns the sessions' driver, for a Sharer or a test.
func (s *Server) Driver() *termdriver.Driver { return s.driver }

// Run serves one client over t until the client disconnects or ctx ends,
// then stops every session, and returns nil on a clean disconnect.
func (s *Server) Run(ctx context.Context, t mcp.Transport) error {
	err := s.mcp.Run(ctx, t)
	stopCtx, cancel := context.WithTimeout(context.Background(), stopTimeout)
	defer cancel()
	if cerr := s.driver.Close(stopCtx); cerr != nil {
		err = errors.Join(err, fmt.Errorf("mcp: stopping the sessions: %w", cerr))
	}
	if errors.Is(err, context.Canceled) && ctx.Err() != nil {
		return nil
	}
	return err
}

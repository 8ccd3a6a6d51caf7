package mcpserver

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"os/exec"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/approval"
	"github.com/ptyhost/ptyhost/termdriver"
)

// Bounds on tool arguments, beyond the terminal's own.
const (
	maxTypeBytes   = 64 << 10
	maxKeys        = 256
	maxPatternLen  = 4096
	maxArgs        = 1024
	defaultTimeout = 10 * time.Second
	maxTimeout     = 10 * time.Minute
	typeTimeout    = 10 * time.Second
	maxScrollback  = ptyhost.MaxScrollback
	// defaultOutputBytes and maxOutputBytes bound one output call.
	defaultOutputBytes = 16 << 10
	maxOutputBytes     = 256 << 10
)

type startIn struct {
	Command string            `json:"command" jsonschema:"the program to run: a name looked up in PATH or a path, without arguments (python3, vim, /bin/bash)"`
	Args    []string          `json:"args,omitempty" jsonschema:"the program's arguments, one per item"`
	Cwd     string            `json:"cwd,omitempty" jsonschema:"working directory; default the server's"`
	Env     map[string]string `json:"env,omitempty" jsonschema:"environment variables to set on top of the server's (TERM is xterm-256color)"`
	Cols    int               `json:"cols,omitempty" jsonschema:"terminal width in columns; default 80"`
	Rows    int               `json:"rows,omitempty" jsonschema:"terminal height in rows; default 24"`
	// Approval puts the session in approval mode.
	Approval bool `json:"approval,omitempty" jsonschema:"hold everything typed into this session until a person approves it (share the session so someone can)"`
}

type startOut struct {
	ID       string `json:"id" jsonschema:"the session's id, for the other tools"`
	PID      int    `json:"pid" jsonschema:"the program's process id"`
	Cols     int    `json:"cols"`
	Rows     int    `json:"rows"`
	Approval bool   `json:"approval,omitempty" jsonschema:"input typed into this session waits for a person's approval"`
}

// viewIn selects how a screen is returned; screen and wait share it.
type viewIn struct {
	Since      uint64 `json:"since,omitempty" jsonschema:"seq of a screen you already have: return only the rows changed since it"`
	Full       bool   `json:"full,omitempty" jsonschema:"return the whole screen even if you were already sent it"`
	Scrollback int    `json:"scrollback,omitempty" jsonschema:"also return up to this many lines scrolled off the top (-1: all kept)"`
}

type screenIn struct {
	ID string `json:"id" jsonschema:"session id from start"`
	viewIn
}

type typeIn struct {
	ID   string   `json:"id" jsonschema:"session id from start"`
	Text string   `json:"text,omitempty" jsonschema:"text typed as is, before the keys; a newline here is a line feed, use keys [\"Enter\"] to press Enter"`
	Keys []string `json:"keys,omitempty" jsonschema:"keys pressed after the text, in order: Enter Tab Esc Backspace Space Up Down Left Right Home End Insert Delete PageUp PageDown F1-F12, a single character, with prefixes C- (Ctrl) M- (Alt) S- (Shift): C-c, C-d, M-x, S-Tab"`
}

type typeOut struct {
	ID    string `json:"id"`
	Bytes int    `json:"bytes" jsonschema:"bytes written to the program's terminal"`
	// The outcome in approval mode.
	Outcome string `json:"outcome,omitempty" jsonschema:"in approval mode: approved, edited, rejected, expired or withdrawn"`
	Written string `json:"written,omitempty" jsonschema:"what was typed when a person edited your input"`
	By      string `json:"by,omitempty" jsonschema:"who decided"`
	Reason  string `json:"reason,omitempty" jsonschema:"why it was rejected, if the person said"`
}

type waitIn struct {
	ID        string `json:"id" jsonschema:"session id from start"`
	Pattern   string `json:"pattern,omitempty" jsonschema:"RE2 regular expression to wait for on the screen text; ^ and $ match at line ends; trailing blanks are trimmed from lines, so a prompt '>>> ' reads '>>>'"`
	QuietMS   int    `json:"quiet_ms,omitempty" jsonschema:"end the wait once the program has written nothing for this many milliseconds"`
	TimeoutMS int    `json:"timeout_ms,omitempty" jsonschema:"give up after this many milliseconds (default 10000) and return the screen with reason timeout"`
	viewIn
}

type waitOut struct {
	Reason   string    `json:"reason" jsonschema:"what ended the wait: match, quiet, exit or timeout"`
	Match    string    `json:"match,omitempty" jsonschema:"the text the pattern matched"`
	WaitedMS int64     `json:"waited_ms"`
	Screen   screenOut `json:"screen"`
}

type resizeIn struct {
	ID   string `json:"id" jsonschema:"session id from start"`
	Cols int    `json:"cols" jsonschema:"new width in columns"`
	Rows int    `json:"rows" jsonschema:"new height in rows"`
}

type idIn struct {
	ID string `json:"id" jsonschema:"session id from start"`
}

type sessionOut struct {
	ID       string   `json:"id"`
	Command  []string `json:"command"`
	PID      int      `json:"pid"`
	Cols     int      `json:"cols"`
	Rows     int      `json:"rows"`
	Exited   bool     `json:"exited,omitempty"`
	ExitCode *int     `json:"exit_code,omitempty"`
	Signal   string   `json:"signal,omitempty"`
}

type listOut struct {
	Sessions []sessionOut `json:"sessions"`
}

type outputIn struct {
	ID       string `json:"id" jsonschema:"session id from start"`
	From     *int64 `json:"from,omitempty" jsonschema:"byte offset to read from (0: the start of what is kept); default: where your last output call for this session ended"`
	MaxBytes int    `json:"max_bytes,omitempty" jsonschema:"the most bytes to return (default 16384)"`
}

type outputOut struct {
	From    int64  `json:"from"`
	To      int64  `json:"to" jsonschema:"offset after the text: where the next call starts"`
	Text    string `json:"text" jsonschema:"what the program printed, without colors or other control sequences"`
	Dropped int64  `json:"dropped,omitempty" jsonschema:"bytes asked for that the log no longer keeps"`
	More    bool   `json:"more,omitempty" jsonschema:"more text follows: call again"`
	Lost    bool   `json:"lost,omitempty" jsonschema:"some output never reached the log (marked in the text)"`
	Done    bool   `json:"done,omitempty" jsonschema:"the program has exited and the log is complete"`
}

type shareIn struct {
	ID    string `json:"id" jsonschema:"session id from start"`
	Drive bool   `json:"drive,omitempty" jsonschema:"also return a link that can type into the session"`
}

func boolPtr(b bool) *bool { return &b }

// addTools registers the tools with their schemas.
func (s *Server) addTools() {
	add(s, &mcp.Tool{
		Name:        "start",
		Description: "Start a program in a new terminal. Returns its session id. Then use wait to see its first screen.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: boolPtr(false), OpenWorldHint: boolPtr(true)},
	}, startSchema, s.start)
	add(s, &mcp.Tool{
		Name: "screen",
		Description: "Read a session's screen as text, the cursor shown as " + CursorMark + ". " +
			"A screen you were already sent is not repeated (\"unchanged since seq N\") unless full is set.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, viewSchema[screenIn], s.screen)
	add(s, &mcp.Tool{
		Name:        "type",
		Description: "Type text and press keys in a session, as a person at the keyboard would. Returns once the program's terminal took it; use wait to see the effect.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: boolPtr(true), OpenWorldHint: boolPtr(true)},
	}, typeSchema, s.typeTool)
	add(s, &mcp.Tool{
		Name: "wait",
		Description: "Wait until the pattern is on the screen, the output has been quiet for quiet_ms, or the program exits; " +
			"the first to happen ends the wait (with neither pattern nor quiet_ms: the exit). Returns the screen and the reason; " +
			"a timeout is a result (reason timeout), not an error.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, waitSchema, s.wait)
	add(s, &mcp.Tool{
		Name: "output",
		Description: "Read what the program printed, as plain text, including what scrolled off the screen long ago " +
			"(the log keeps the last MiB). Each call continues where the last one ended.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, outputSchema, s.output)
	add(s, &mcp.Tool{
		Name:        "resize",
		Description: "Resize a session's terminal; the program is told (SIGWINCH).",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: boolPtr(false), IdempotentHint: true},
	}, resizeSchema, s.resize)
	add(s, &mcp.Tool{
		Name:        "stop",
		Description: "Stop a session's program (hangup, then kill) and forget the session. Returns how it exited.",
		Annotations: &mcp.ToolAnnotations{DestructiveHint: boolPtr(true), IdempotentHint: true},
	}, idSchema, s.stop)
	add(s, &mcp.Tool{
		Name:        "list",
		Description: "List the sessions: id, command, size, and exit status once exited.",
		Annotations: &mcp.ToolAnnotations{ReadOnlyHint: true},
	}, listSchema, s.list)
	if s.opts.Sharer != nil {
		add(s, &mcp.Tool{
			Name:        "share",
			Description: "Share a session so people can watch it live in a browser (and drive it, when drive is set). Returns the links.",
			Annotations: &mcp.ToolAnnotations{DestructiveHint: boolPtr(false), OpenWorldHint: boolPtr(true)},
		}, shareSchema, s.share)
	}
}

// add registers a typed tool with the input schema built by schema.
func add[In, Out any](s *Server, t *mcp.Tool, schema func() any, h mcp.ToolHandlerFor[In, Out]) {
	t.InputSchema = schema()
	mcp.AddTool(s.mcp, t, h)
}

func (s *Server) start(ctx context.Context, _ *mcp.CallToolRequest, in startIn) (*mcp.CallToolResult, startOut, error) {
	if strings.TrimSpace(in.Command) == "" {
		return nil, startOut{}, errors.New("command is empty: give the program to run, e.g. \"bash\"")
	}
	env := make([]string, 0, len(in.Env))
	for _, k := range slices.Sorted(maps.Keys(in.Env)) {
		if k == "" || strings.ContainsAny(k, "=\x00") || strings.ContainsRune(in.Env[k], 0) {
			return nil, startOut{}, fmt.Errorf("env key %q is not a variable name", k)
		}
		env = append(env, k+"="+in.Env[k])
	}
	sess, err := s.driver.Start(termdriver.StartSpec{
		Command: append([]string{in.Command}, in.Args...),
		Dir:     in.Cwd, Env: env, Cols: in.Cols, Rows: in.Rows,
	})
	if err != nil {
		return nil, startOut{}, startError(in, err)
	}
	info := sess.Info()
	text := fmt.Sprintf("started %s: %s (pid %d, %dx%d)", info.ID, in.Command, info.PID, info.Cols, info.Rows)
	approving := in.Approval || s.opts.Approval.All
	if approving {
		sess.RequireApproval(approval.Config{AutoApprove: s.opts.Approval.AutoApprove, Timeout: s.opts.Approval.Timeout})
		text += "; input waits for a person's approval"
		if s.opts.Sharer != nil {
			text += ": share it so someone can approve"
		}
	}
	return textResult(text), startOut{ID: info.ID, PID: info.PID, Cols: info.Cols, Rows: info.Rows, Approval: approving}, nil
}

// startError says why a program did not start, and what to do about it.
func startError(in startIn, err error) error {
	switch {
	case in.Cwd != "" && (errors.Is(err, fs.ErrNotExist) || errors.Is(err, fs.ErrInvalid)):
		return fmt.Errorf("cwd %q is not a directory that exists", in.Cwd)
	case errors.Is(err, exec.ErrNotFound) && strings.ContainsRune(in.Command, ' '):
		return fmt.Errorf("command %q not found: give the program alone in command and its arguments in args", in.Command)
	case errors.Is(err, exec.ErrNotFound):
		return fmt.Errorf("command %q not found in PATH (or cwd %q); give a full path or install it", in.Command, in.Cwd)
	case errors.Is(err, fs.ErrPermission):
		return fmt.Errorf("command %q is not executable: %v", in.Command, err)
	case errors.Is(err, ptyhost.ErrBadGeometry):
		return fmt.Errorf("size %dx%d out of range: cols 1..%d, rows 1..%d", in.Cols, in.Rows, ptyhost.MaxCols, ptyhost.MaxRows)
	case errors.Is(err, termdriver.ErrTooManySessions):
		return fmt.Errorf("%v", err)
	}
	return fmt.Errorf("starting %q: %v", in.Command, err)
}

func (s *Server) screen(_ context.Context, _ *mcp.CallToolRequest, in screenIn) (*mcp.CallToolResult, screenOut, error) {
	sess, err := s.driver.Session(in.ID)
	if err != nil {
		return nil, screenOut{}, err
	}
	scr, err := sess.Screen(s.screenOptions(in.ID, in.viewIn))
	if err != nil {
		return nil, screenOut{}, err
	}
	out, text := s.view(in.ID, in.viewIn, &scr)
	return textResult(text), out, nil
}

func (s *Server) typeTool(ctx context.Context, req *mcp.CallToolRequest, in typeIn) (*mcp.CallToolResult, typeOut, error) {
	sess, err := s.driver.Session(in.ID)
	if err != nil {
		return nil, typeOut{}, err
	}
	if in.Text == "" && len(in.Keys) == 0 {
		return nil, typeOut{}, errors.New("nothing to type: give text, keys or both")
	}
	keys := make([]termdriver.Key, len(in.Keys))
	for i, name := range in.Keys {
		if keys[i], err = termdriver.ParseKey(name); err != nil {
			return nil, typeOut{}, fmt.Errorf("keys[%d]: %v", i, strings.TrimPrefix(err.Error(), "termdriver: "))
		}
	}
	if sess.Gate() != nil {
		return s.propose(ctx, req, sess, in, keys)
	}
	ctx, cancel := context.WithTimeout(ctx, typeTimeout)
	defer cancel()
	n, err := sess.Type(ctx, in.Text, keys...)
	if err != nil {
		switch {
		case errors.Is(err, ptyhost.ErrExited):
			return nil, typeOut{}, fmt.Errorf("session %s has exited; its final screen is still readable, stop it when done", in.ID)
		case errors.Is(err, termdriver.ErrInputPending):
			return nil, typeOut{}, fmt.Errorf("session %s: the program has not read its input for %v; it is still queued. Check the screen: the program may be busy or stuck", in.ID, typeTimeout)
		}
		return nil, typeOut{}, err
	}
	return textResult(fmt.Sprintf("typed into %s", in.ID)), typeOut{ID: in.ID, Bytes: n}, nil
}

func (s *Server) wait(ctx context.Context, _ *mcp.CallToolRequest, in waitIn) (*mcp.CallToolResult, waitOut, error) {
	sess, err := s.driver.Session(in.ID)
	if err != nil {
		return nil, waitOut{}, err
	}
	opts := termdriver.WaitOptions{
		Quiet:   time.Duration(in.QuietMS) * time.Millisecond,
		Timeout: time.Duration(in.TimeoutMS) * time.Millisecond,
	}
	if opts.Timeout == 0 {
		opts.Timeout = defaultTimeout
	}
	if in.Pattern != "" {
		// Checked as written so that the error quotes the agent's
		// pattern; then compiled with ^ and $ at line ends.
		if _, err := regexp.Compile(in.Pattern); err != nil {
			return nil, waitOut{}, fmt.Errorf("bad pattern %q: %v (RE2 syntax)", in.Pattern, strings.TrimPrefix(err.Error(), "error parsing regexp: "))
		}
		opts.Pattern = regexp.MustCompile("(?m)" + in.Pattern)
	}
	opts.Screen = s.screenOptions(in.ID, in.viewIn)
	res, err := sess.Wait(ctx, opts)
	if err != nil {
		return nil, waitOut{}, err
	}
	scr, text := s.view(in.ID, in.viewIn, &res.Screen)
	head := fmt.Sprintf("%s after %dms", res.Reason, res.Waited.Milliseconds())
	if res.Match != "" {
		head += fmt.Sprintf(": %q", res.Match)
	}
	return textResult(head + "\n" + text), waitOut{
		Reason: string(res.Reason), Match: res.Match, WaitedMS: res.Waited.Milliseconds(), Screen: scr,
	}, nil
}

func (s *Server) output(_ context.Context, _ *mcp.CallToolRequest, in outputIn) (*mcp.CallToolResult, outputOut, error) {
	sess, err := s.driver.Session(in.ID)
	if err != nil {
		return nil, outputOut{}, err
	}
	var from int64
	if in.From != nil {
		from = *in.From
	} else {
		s.mu.Lock()
		from = s.read[in.ID]
		s.mu.Unlock()
	}
	max := in.MaxBytes
	if max == 0 {
		max = defaultOutputBytes
	}
	o := sess.Output(from, max)
	s.mu.Lock()
	s.read[in.ID] = o.To
	s.mu.Unlock()
	out := outputOut{From: o.From, To: o.To, Text: o.Text, Dropped: o.Dropped, More: o.More, Lost: o.Lost, Done: o.Done}
	head := fmt.Sprintf("[%s output bytes %d..%d", in.ID, o.From, o.To)
	switch {
	case o.More:
		head += ", more follows"
	case o.Done:
		head += ", complete"
	}
	if o.Dropped > 0 {
		head += fmt.Sprintf(", %d earlier bytes no longer kept", o.Dropped)
	}
	return textResult(head + "]\n" + o.Text), out, nil
}

func (s *Server) resize(_ context.Context, _ *mcp.CallToolRequest, in resizeIn) (*mcp.CallToolResult, sessionOut, error) {
	sess, err := s.driver.Session(in.ID)
	if err != nil {
		return nil, sessionOut{}, err
	}
	if err := sess.Resize(in.Cols, in.Rows); err != nil {
		if errors.Is(err, ptyhost.ErrExited) {
			return nil, sessionOut{}, fmt.Errorf("session %s has exited", in.ID)
		}
		return nil, sessionOut{}, fmt.Errorf("size %dx%d out of range: cols 1..%d, rows 1..%d", in.Cols, in.Rows, ptyhost.MaxCols, ptyhost.MaxRows)
	}
	return textResult(fmt.Sprintf("%s resized to %dx%d", in.ID, in.Cols, in.Rows)), infoOut(sess.Info()), nil
}

func (s *Server) stop(ctx context.Context, _ *mcp.CallToolRequest, in idIn) (*mcp.CallToolResult, sessionOut, error) {
	info, err := s.driver.Stop(ctx, in.ID)
	if err != nil {
		return nil, sessionOut{}, err
	}
	s.mu.Lock()
	delete(s.sent, in.ID)
	delete(s.read, in.ID)
	s.mu.Unlock()
	out := infoOut(info)
	return textResult(fmt.Sprintf("stopped %s: %s", in.ID, exitText(out))), out, nil
}

func (s *Server) list(_ context.Context, _ *mcp.CallToolRequest, _ struct{}) (*mcp.CallToolResult, listOut, error) {
	infos := s.driver.List()
	out := listOut{Sessions: make([]sessionOut, len(infos))}
	var b strings.Builder
	if len(infos) == 0 {
		b.WriteString("no sessions")
	}
	for i, info := range infos {
		out.Sessions[i] = infoOut(info)
		if i > 0 {
			b.WriteByte('\n')
		}
		fmt.Fprintf(&b, "%s %s %dx%d %s", info.ID, strings.Join(info.Command, " "), info.Cols, info.Rows, exitText(out.Sessions[i]))
	}
	return textResult(b.String()), out, nil
}

func (s *Server) share(ctx context.Context, _ *mcp.CallToolRequest, in shareIn) (*mcp.CallToolResult, ShareLinks, error) {
	sess, err := s.driver.Session(in.ID)
	if err != nil {
		return nil, ShareLinks{}, err
	}
	links, err := s.opts.Sharer.Share(ctx, sess, ShareRequest{Drive: in.Drive})
	if err != nil {
		return nil, ShareLinks{}, fmt.Errorf("sharing %s: %v", in.ID, err)
	}
	text := "watch: " + links.Watch
	if links.Drive != "" {
		text += "\ndrive: " + links.Drive
	}
	return textResult(text), links, nil
}

func infoOut(info termdriver.Info) sessionOut {
	out := sessionOut{ID: info.ID, Command: info.Command, PID: info.PID, Cols: info.Cols, Rows: info.Rows, Exited: info.Exited}
	if info.Exited {
		code := int(info.Exit.Code)
		out.ExitCode, out.Signal = &code, info.Exit.Signal
	}
	return out
}

// exitText is "running", "exited 0" or "exited 137 (SIGKILL)".
func exitText(o sessionOut) string {
	switch {
	case !o.Exited:
		return "running"
	case o.Signal != "":
		return fmt.Sprintf("exited %d (%s)", *o.ExitCode, o.Signal)
	}
	return fmt.Sprintf("exited %d", *o.ExitCode)
}

// textResult is a result whose content for the model is text; the SDK
// adds the structured output beside it.
func textResult(text string) *mcp.CallToolResult {
	return &mcp.CallToolResult{Content: []mcp.Content{&mcp.TextContent{Text: text}}}
}

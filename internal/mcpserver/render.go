package mcpserver

import (
	"fmt"
	"strings"

	"github.com/ptyhost/ptyhost/termdriver"
)

// screenOut is a screen as a tool returns it: whole (text), as the rows
// changed since an earlier one (changed), or only the news that nothing
// changed (unchanged_since).
type screenOut struct {
	ID             string   `json:"id"`
	Seq            uint64   `json:"seq" jsonschema:"the screen's seq: pass it as since to get only later changes"`
	Cols           int      `json:"cols"`
	Rows           int      `json:"rows"`
	CursorRow      int      `json:"cursor_row" jsonschema:"1-based"`
	CursorCol      int      `json:"cursor_col" jsonschema:"1-based"`
	CursorHidden   bool     `json:"cursor_hidden,omitempty"`
	AltScreen      bool     `json:"alt_screen,omitempty" jsonschema:"a full-screen program is showing"`
	Text           string   `json:"text,omitempty" jsonschema:"the whole screen, lines trimmed, the cursor marked"`
	ChangedSince   uint64   `json:"changed_since,omitempty" jsonschema:"changed lists the rows that differ from the screen at this seq"`
	Changed        []rowOut `json:"changed,omitempty"`
	UnchangedSince uint64   `json:"unchanged_since,omitempty" jsonschema:"the screen is the one you were sent at this seq"`
	Scrollback     []string `json:"scrollback,omitempty" jsonschema:"lines above the screen, oldest first"`
	Exited         bool     `json:"exited,omitempty"`
	ExitCode       *int     `json:"exit_code,omitempty"`
	Signal         string   `json:"signal,omitempty"`
}

type rowOut struct {
	Row  int    `json:"row" jsonschema:"1-based"`
	Text string `json:"text"`
}

// screenOptions turns a view request into what the session compares the
// screen with: the screen named by since, else the last one this server
// returned for the session, unless the whole screen was asked for.
func (s *Server) screenOptions(id string, in viewIn) termdriver.ScreenOptions {
	opts := termdriver.ScreenOptions{Since: in.Since, Scrollback: in.Scrollback}
	if in.Since == 0 && !in.Full {
		s.mu.Lock()
		opts.Since = s.sent[id]
		s.mu.Unlock()
	}
	return opts
}

// view renders scr, taken with screenOptions(id, in), for the client, and
// remembers it as the last screen sent.
func (s *Server) view(id string, in viewIn, scr *termdriver.Screen) (screenOut, string) {
	s.mu.Lock()
	s.sent[id] = scr.Seq
	s.mu.Unlock()
	out := screenOut{
		ID: id, Seq: scr.Seq, Cols: scr.Cols, Rows: scr.Rows,
		CursorRow: scr.CursorRow + 1, CursorCol: scr.CursorCol + 1, CursorHidden: !scr.CursorVisible,
		AltScreen: scr.AltScreen, Scrollback: scr.Scrollback, Exited: scr.Exited,
	}
	var b strings.Builder
	fmt.Fprintf(&b, "[%s seq %d, %dx%d", id, scr.Seq, scr.Cols, scr.Rows)
	if scr.Exited {
		code := int(scr.Exit.Code)
		out.ExitCode, out.Signal = &code, scr.Exit.Signal
		fmt.Fprintf(&b, ", exited %d", code)
		if scr.Exit.Signal != "" {
			fmt.Fprintf(&b, " (%s)", scr.Exit.Signal)
		}
	}
	switch {
	case scr.Unchanged():
		out.UnchangedSince = scr.Base
		fmt.Fprintf(&b, ", unchanged since seq %d]", scr.Base)
	case scr.Base != 0 && in.Since != 0:
		out.ChangedSince = scr.Base
		fmt.Fprintf(&b, ", rows changed since seq %d]", scr.Base)
		for _, r := range scr.Changed {
			line := scr.Line(r, CursorMark)
			out.Changed = append(out.Changed, rowOut{Row: r + 1, Text: line})
			fmt.Fprintf(&b, "\n%d│%s", r+1, line)
		}
	default:
		if in.Since != 0 {
			fmt.Fprintf(&b, ", seq %d is not remembered: whole screen", in.Since)
		}
		b.WriteByte(']')
		out.Text = scr.Marked(CursorMark)
		if len(scr.Scrollback) > 0 {
			fmt.Fprintf(&b, "\n%s\n── %d scrollback lines above, screen below ──", strings.Join(scr.Scrollback, "\n"), len(scr.Scrollback))
		}
		if out.Text != "" {
			b.WriteByte('\n')
			b.WriteString(out.Text)
		}
	}
	return out, b.String()
}

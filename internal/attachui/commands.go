package attachui

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/ptyhost/ptyhost/attachwire"
)

// MaxCommands is how many commands a CommandLog keeps: the most recent.
const MaxCommands = 100

// CommandLog keeps the recent commands of a session from its command
// marks (attachwire.CommandMark): each command's line and, once it ended,
// its exit status. It is used by one goroutine.
type CommandLog struct {
	cmds []loggedCommand
	n    int // commands seen, numbering them from 1
}

type loggedCommand struct {
	num     int
	text    string
	ended   bool
	status  int
	hasStat bool
}

// Mark takes one Marker label; labels that are not command marks, and
// prompts, change nothing.
func (l *CommandLog) Mark(label string) {
	m, ok := attachwire.ParseCommandMark(label)
	if !ok {
		return
	}
	switch m.Kind {
	case attachwire.MarkCommand:
		l.n++
		if len(l.cmds) == MaxCommands {
			l.cmds = append(l.cmds[:0], l.cmds[1:]...)
		}
		l.cmds = append(l.cmds, loggedCommand{num: l.n, text: m.Command})
	case attachwire.MarkExit:
		// The end belongs to the latest command still running; an end with
		// none (the log began mid-command) has nothing to mark.
		if k := len(l.cmds) - 1; k >= 0 && !l.cmds[k].ended {
			c := &l.cmds[k]
			c.ended, c.status, c.hasStat = true, m.Status, m.HasStatus
		}
	}
}

// Len returns how many commands the log holds.
func (l *CommandLog) Len() int { return len(l.cmds) }

// Lines renders the last commands, oldest first, at most max of them,
// each fitted to width cells: "#12 ✗ 2   make test". A command that has
// not ended shows "…", one that ended without a status "?".
func (l *CommandLog) Lines(width, max int) []string {
	start := len(l.cmds) - max
	if start < 0 {
		start = 0
	}
	var out []string
	for _, c := range l.cmds[start:] {
		var b strings.Builder
		b.WriteByte('#')
		b.WriteString(strconv.Itoa(c.num))
		b.WriteByte(' ')
		mark, st := "✗", ""
		switch {
		case !c.ended:
			mark = "…"
		case !c.hasStat:
			mark = "?"
		case c.status == 0:
			mark, st = "✓", "0"
		default:
			st = strconv.Itoa(c.status)
		}
		// The status column is three wide: statuses are 0–255 from a shell.
		b.WriteString(mark + " " + st + strings.Repeat(" ", max0(3-len(st))) + " ")
		text := c.text
		if text == "" {
			text = "(command line not given)"
		}
		b.WriteString(text)
		out = append(out, fit(b.String(), width))
	}
	return out
}

func max0(n int) int {
	if n < 0 {
		return 0
	}
	return n
}

// fit cuts s to at most width runes, marking a cut with "…". Command
// lines are one line of displayable text (attachwire.CommandMark makes
// them so), and a rune is taken as one cell: a wide one may overhang, and
// the panel's row is cleared to its end either way.
func fit(s string, width int) string {
	if width < 1 || utf8.RuneCountInString(s) <= width {
		return s
	}
	r := []rune(s)
	return string(r[:width-1]) + "…"
}

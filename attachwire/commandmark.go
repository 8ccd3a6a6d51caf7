package attachwire

import (
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

// MarkKind says which point of a shell command's life a command mark is.
type MarkKind uint8

// The command marks a host makes from a shell's integration sequences.
const (
	// MarkPrompt: the shell is about to draw its prompt. Label "prompt".
	MarkPrompt MarkKind = iota + 1
	// MarkCommand: a command starts; what follows is its output. Label
	// "$ " and the command line, or "$" when the shell did not say it.
	MarkCommand
	// MarkExit: the command finished. Label "exit " and its decimal
	// status, or "exit" when the shell did not say it.
	MarkExit
)

// MaxCommandText bounds the command line a command mark carries, in
// bytes; a longer one is cut at a rune boundary.
const MaxCommandText = 1024

// CommandMark is a Marker label with a reserved form (docs/protocol.md
// §4, "Command marks"): viewers that know the forms show commands as
// blocks and jump between them; any other viewer shows the label as
// text, which still reads well. A host's own labels never take these
// forms by accident only if it avoids exactly "prompt", "$", "exit" and
// labels starting "$ " or "exit ".
type CommandMark struct {
	Kind MarkKind
	// Command is a MarkCommand's command line, "" when unknown.
	Command string
	// Status is a MarkExit's exit status when HasStatus.
	Status    int
	HasStatus bool
}

// Label returns the mark's label. A command line is made displayable on
// one line: a newline becomes "␤", a tab a space, every other control
// character and invalid UTF-8 "�", and it is cut to MaxCommandText bytes.
func (m CommandMark) Label() string {
	switch m.Kind {
	case MarkPrompt:
		return "prompt"
	case MarkCommand:
		if text := commandText(m.Command); text != "" {
			return "$ " + text
		}
		return "$"
	case MarkExit:
		if m.HasStatus {
			return "exit " + strconv.Itoa(m.Status)
		}
		return "exit"
	}
	return ""
}

func commandText(s string) string {
	var b strings.Builder
	for _, r := range strings.ToValidUTF8(s, "\uFFFD") {
		switch {
		case r == '\n':
			r = '␤'
		case r == '\t':
			r = ' '
		case unicode.IsControl(r):
			r = utf8.RuneError
		}
		if b.Len()+utf8.RuneLen(r) > MaxCommandText {
			break
		}
		b.WriteRune(r)
	}
	return strings.TrimSpace(b.String())
}

// ParseCommandMark reads a label in one of the reserved forms; ok is
// false for any other label (a host's free-form marker).
func ParseCommandMark(label string) (m CommandMark, ok bool) {
	switch {
	case label == "prompt":
		return CommandMark{Kind: MarkPrompt}, true
	case label == "$":
		return CommandMark{Kind: MarkCommand}, true
	case strings.HasPrefix(label, "$ "):
		return CommandMark{Kind: MarkCommand, Command: label[2:]}, true
	case label == "exit":
		return CommandMark{Kind: MarkExit}, true
	case strings.HasPrefix(label, "exit "):
		digits := label[5:]
		n, err := strconv.Atoi(digits)
		// Only the form Label writes: no sign, no leading zero.
		if err != nil || strconv.Itoa(n) != digits {
			return CommandMark{}, false
		}
		return CommandMark{Kind: MarkExit, Status: n, HasStatus: true}, true
	}
	return CommandMark{}, false
}

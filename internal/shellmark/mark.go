package shellmark

import (
	"strconv"
	"strings"
)

// Kind says what a Mark marks.
type Kind uint8

// The marks a shell writes, in the order of one command's life.
const (
	// Prompt: the shell is about to draw its prompt (OSC 133;A).
	Prompt Kind = iota + 1
	// PromptEnd: the prompt is drawn and the user types (OSC 133;B).
	PromptEnd
	// CommandLine: the text of the command about to run (OSC 633;E).
	CommandLine
	// CommandStart: the command runs; its output follows (OSC 133;C).
	CommandStart
	// CommandEnd: the command finished, with its status when given
	// (OSC 133;D[;status]).
	CommandEnd
)

// Mark is one shell-integration mark.
type Mark struct {
	Kind Kind
	// Text is the command line of a CommandLine mark, unescaped.
	Text string
	// Status is the exit status of a CommandEnd mark when HasStatus.
	Status    int
	HasStatus bool
}

// parseBody reads the body of an OSC 133 or 633 sequence (what follows
// "133;" or "633;"), vsc saying which. Unknown letters and properties
// (633;P) are no mark.
func parseBody(body []byte, vsc bool) (Mark, bool) {
	if len(body) == 0 {
		return Mark{}, false
	}
	letter, rest := body[0], body[1:]
	if len(rest) > 0 && rest[0] != ';' {
		return Mark{}, false
	}
	if len(rest) > 0 {
		rest = rest[1:]
	}
	switch letter {
	case 'A':
		return Mark{Kind: Prompt}, true
	case 'B':
		return Mark{Kind: PromptEnd}, true
	case 'C':
		return Mark{Kind: CommandStart}, true
	case 'D':
		m := Mark{Kind: CommandEnd}
		// The status is the first parameter; later ones (133's key=value
		// extensions) are not ours to read.
		first, _, _ := strings.Cut(string(rest), ";")
		if n, err := strconv.Atoi(first); err == nil && first != "" && first[0] != '+' {
			m.Status, m.HasStatus = n, true
		}
		return m, true
	case 'E':
		if !vsc {
			return Mark{}, false
		}
		// 633;E;<command line>[;<nonce>]: ';' inside the line is escaped,
		// so the first raw ';' ends it.
		line, _, _ := strings.Cut(string(rest), ";")
		return Mark{Kind: CommandLine, Text: Unescape(line)}, true
	}
	return Mark{}, false
}

// Unescape undoes OSC 633's escaping of a command line: "\\" is a
// backslash and "\xAB" the byte 0xAB; any other backslash stands for
// itself. The result may hold any byte; its consumer sanitizes it.
func Unescape(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	b.Grow(len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		switch next := s[i+1]; {
		case next == '\\':
			b.WriteByte('\\')
			i++
		case next == 'x' && i+3 < len(s) && isHex(s[i+2]) && isHex(s[i+3]):
			b.WriteByte(unhex(s[i+2])<<4 | unhex(s[i+3]))
			i += 3
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

// Escape is Unescape's inverse, as a shell snippet writes it: backslash,
// ';' and every byte below 0x20 or equal to 0x7f escaped, so the line
// cannot end the sequence or its parameter early.
func Escape(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == '\\':
			b.WriteString(`\\`)
		case c == ';' || c < 0x20 || c == 0x7f:
			b.WriteString(`\x`)
			b.WriteByte("0123456789abcdef"[c>>4])
			b.WriteByte("0123456789abcdef"[c&15])
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return '0' <= c && c <= '9' || 'a' <= c && c <= 'f' || 'A' <= c && c <= 'F'
}

func unhex(c byte) byte {
	switch {
	case c <= '9':
		return c - '0'
	case c <= 'F':
		return c - 'A' + 10
	}
	return c - 'a' + 10
}

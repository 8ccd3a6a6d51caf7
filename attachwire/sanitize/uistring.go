package sanitize

import (
	"strings"
	"unicode/utf8"
)

// UIString returns s made safe to display in a user interface (a window
// title, a notification, a log line): invalid UTF-8, C0 controls, DEL, C1
// controls and bidirectional overrides and isolates are dropped, and the
// result is truncated to at most maxRunes runes, on a rune boundary.
// maxRunes ≤ 0 means no limit. A string that needs no change is returned as
// is, without allocating.
func UIString(s string, maxRunes int) string {
	n, clean := 0, true
	for i, r := range s {
		if maxRunes > 0 && n == maxRunes {
			if clean {
				return s[:i]
			}
			break
		}
		n++
		if !displayable(r) || r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD") {
			clean = false
		}
	}
	if clean {
		return s
	}
	var b strings.Builder
	n = 0
	for i, r := range s {
		if maxRunes > 0 && n == maxRunes {
			break
		}
		if r == utf8.RuneError && !strings.HasPrefix(s[i:], "\uFFFD") || !displayable(r) {
			continue
		}
		b.WriteRune(r)
		n++
	}
	return b.String()
}

// displayable reports whether r may appear in a title or UI string: not a
// C0 or C1 control, not DEL, and not a bidi override or isolate (which can
// make text display in an order other than its logical one).
func displayable(r rune) bool {
	switch {
	case r < 0x20, r >= del && r < 0xa0:
		return false
	case r >= 0x202a && r <= 0x202e, r >= 0x2066 && r <= 0x2069:
		return false
	}
	return true
}

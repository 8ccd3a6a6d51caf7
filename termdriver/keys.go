package termdriver

import (
	"fmt"
	"strconv"
	"strings"
)

// MaxKeyName is the longest key name ParseKey accepts, in bytes.
const MaxKeyName = 32

// Modifier is a bit set of the modifier keys held with a Key.
type Modifier uint8

// Modifiers, as xterm numbers them in its modified-key sequences (the
// parameter it sends is 1 plus their sum).
const (
	ModShift Modifier = 1
	ModAlt   Modifier = 2
	ModCtrl  Modifier = 4
)

// Key is one key press: a named key (Enter, Up, F5, …) or a character,
// with modifiers. The zero Key is invalid; build one with ParseKey.
type Key struct {
	name string // canonical name of a named key, "" for a character
	r    rune   // the character when name is ""
	mods Modifier
}

// special describes how a named key is encoded.
type special struct {
	name string
	// plain is sent with no modifier, whatever the cursor-key mode.
	plain string
	// final and num give the CSI forms: a cursor key is CSI final (SS3
	// final in application cursor-key mode), or CSI 1;m final with
	// modifiers; a key with num is CSI num ~, or CSI num;m ~.
	final byte
	num   int
	// ss3 sends SS3 final unmodified whatever the mode (F1-F4).
	ss3 bool
	// cursor marks the keys DECCKM switches to SS3.
	cursor bool
}

// specials is every named key, in the order docs list them.
var specials = []special{
	{name: "Enter", plain: "\r"},
	{name: "Tab", plain: "\t"},
	{name: "Esc", plain: "\x1b"},
	{name: "Backspace", plain: "\x7f"},
	{name: "Space", plain: " "},
	{name: "Up", final: 'A', cursor: true},
	{name: "Down", final: 'B', cursor: true},
	{name: "Right", final: 'C', cursor: true},
	{name: "Left", final: 'D', cursor: true},
	{name: "Home", final: 'H', cursor: true},
	{name: "End", final: 'F', cursor: true},
	{name: "Insert", num: 2},
	{name: "Delete", num: 3},
	{name: "PageUp", num: 5},
	{name: "PageDown", num: 6},
	{name: "F1", final: 'P', ss3: true},
	{name: "F2", final: 'Q', ss3: true},
	{name: "F3", final: 'R', ss3: true},
	{name: "F4", final: 'S', ss3: true},
	{name: "F5", num: 15},
	{name: "F6", num: 17},
	{name: "F7", num: 18},
	{name: "F8", num: 19},
	{name: "F9", num: 20},
	{name: "F10", num: 21},
	{name: "F11", num: 23},
	{name: "F12", num: 24},
}

// aliases are other names agents use for the same keys.
var aliases = map[string]string{
	"return": "Enter", "cr": "Enter", "escape": "Esc", "bs": "Backspace",
	"del": "Delete", "ins": "Insert", "pgup": "PageUp", "pgdn": "PageDown",
	"pagedn": "PageDown",
}

// specialIndex maps a lower-case name to its entry in specials.
var specialIndex = func() map[string]int {
	m := make(map[string]int, len(specials)+len(aliases))
	for i, s := range specials {
		m[strings.ToLower(s.name)] = i
	}
	for a, name := range aliases {
		m[a] = m[strings.ToLower(name)]
	}
	return m
}()

// KeyNames returns the canonical names of the named keys, for help texts.
func KeyNames() []string {
	names := make([]string, len(specials))
	for i, s := range specials {
		names[i] = s.name
	}
	return names
}

// KeyError reports a key name ParseKey does not understand.
type KeyError struct {
	Name   string
	Reason string
}

// Error quotes the name and says what is wrong with it.
func (e *KeyError) Error() string {
	return fmt.Sprintf("termdriver: key %q: %s", e.Name, e.Reason)
}

// ParseKey parses a key name: a named key (Enter, Tab, Esc, Backspace,
// Space, Up, Down, Left, Right, Home, End, Insert, Delete, PageUp,
// PageDown, F1-F12; case does not matter) or a single character, after
// any of the modifier prefixes C- (Ctrl), M- (Alt), S- (Shift), also
// spelled Ctrl-, Alt- and Shift-. C- applies to the letters, @, [, \, ],
// ^, _, ? and Space, as on a terminal; S- to named keys only (a shifted
// character is the character itself: type "A").
func ParseKey(name string) (Key, error) {
	if len(name) > MaxKeyName {
		return Key{}, &KeyError{Name: name[:MaxKeyName] + "…", Reason: fmt.Sprintf("longer than %d bytes", MaxKeyName)}
	}
	if name == "" {
		return Key{}, &KeyError{Name: name, Reason: "empty"}
	}
	var k Key
	rest := name
	for {
		mod, after, ok := cutModifier(rest)
		if !ok {
			break
		}
		if k.mods&mod != 0 {
			return Key{}, &KeyError{Name: name, Reason: "modifier given twice"}
		}
		k.mods |= mod
		rest = after
	}
	if i, ok := specialIndex[strings.ToLower(rest)]; ok {
		k.name = specials[i].name
		if k.name == "Space" {
			k.name, k.r = "", ' '
		}
	} else {
		rs := []rune(rest)
		if len(rs) != 1 || rs[0] < ' ' || rs[0] == 0x7f || (rs[0] >= 0x80 && rs[0] < 0xa0) || rs[0] == '\uFFFD' {
			return Key{}, &KeyError{Name: name, Reason: "not a key name or a single printable character (named keys: " + strings.Join(KeyNames(), ", ") + ")"}
		}
		k.r = rs[0]
	}
	if k.name == "" {
		if k.mods&ModShift != 0 {
			return Key{}, &KeyError{Name: name, Reason: "S- applies to named keys; type the shifted character itself"}
		}
		if k.mods&ModCtrl != 0 {
			if _, ok := ctrlByte(k.r); !ok {
				return Key{}, &KeyError{Name: name, Reason: "C- applies to letters, Space and @[\\]^_?"}
			}
		}
	}
	return k, nil
}

// cutModifier removes one modifier prefix from s. A lone "C" or "M" is a
// character, not a prefix: the prefix needs something after its dash.
func cutModifier(s string) (Modifier, string, bool) {
	for _, p := range []struct {
		prefix string
		mod    Modifier
	}{
		{"ctrl-", ModCtrl}, {"alt-", ModAlt}, {"shift-", ModShift}, {"meta-", ModAlt},
		{"c-", ModCtrl}, {"m-", ModAlt}, {"s-", ModShift},
	} {
		if len(s) > len(p.prefix) && strings.EqualFold(s[:len(p.prefix)], p.prefix) {
			return p.mod, s[len(p.prefix):], true
		}
	}
	return 0, s, false
}

// ctrlByte returns the control code C-r sends.
func ctrlByte(r rune) (byte, bool) {
	switch {
	case r >= 'a' && r <= 'z':
		return byte(r - 'a' + 1), true
	case r >= 'A' && r <= 'Z':
		return byte(r - 'A' + 1), true
	case r == ' ' || r == '@' || r == '2':
		return 0, true
	case r >= '[' && r <= '_':
		return byte(r - '@'), true
	case r == '?':
		return 0x7f, true
	}
	return 0, false
}

// String returns the key's canonical name, which ParseKey reads back as
// the same Key.
func (k Key) String() string {
	var b strings.Builder
	if k.mods&ModCtrl != 0 {
		b.WriteString("C-")
	}
	if k.mods&ModAlt != 0 {
		b.WriteString("M-")
	}
	if k.mods&ModShift != 0 {
		b.WriteString("S-")
	}
	switch {
	case k.name != "":
		b.WriteString(k.name)
	case k.r == ' ':
		b.WriteString("Space")
	default:
		b.WriteRune(k.r)
	}
	return b.String()
}

// Append appends the bytes xterm sends for the key to dst. appCursor is
// the program's cursor-key mode (DECCKM): when set, the unmodified
// arrows, Home and End are sent as SS3 sequences.
func (k Key) Append(dst []byte, appCursor bool) []byte {
	if k.name == "" {
		return k.appendChar(dst)
	}
	s := specials[specialIndex[strings.ToLower(k.name)]]
	param := 1 + int(k.mods)
	switch {
	case s.plain != "":
		return k.appendPlain(dst, s)
	case s.num != 0 && k.mods == 0:
		return append(append(append(dst, "\x1b["...), strconv.Itoa(s.num)...), '~')
	case s.num != 0:
		dst = append(append(append(dst, "\x1b["...), strconv.Itoa(s.num)...), ';')
		return append(append(dst, strconv.Itoa(param)...), '~')
	case k.mods != 0:
		return append(append(append(dst, "\x1b[1;"...), strconv.Itoa(param)...), s.final)
	case s.ss3 || (s.cursor && appCursor):
		return append(dst, 0x1b, 'O', s.final)
	}
	return append(dst, 0x1b, '[', s.final)
}

// appendPlain encodes Enter, Tab, Esc and Backspace with modifiers as
// xterm does by default: Alt prefixes ESC, Shift-Tab is CSI Z, Ctrl-
// Backspace is BS; other combinations send the key alone.
func (k Key) appendPlain(dst []byte, s special) []byte {
	if k.mods&ModAlt != 0 {
		dst = append(dst, 0x1b)
	}
	switch {
	case s.name == "Tab" && k.mods&ModShift != 0:
		return append(dst, "\x1b[Z"...)
	case s.name == "Backspace" && k.mods&ModCtrl != 0:
		return append(dst, 0x08)
	}
	return append(dst, s.plain...)
}

// appendChar encodes a character key: C- makes the control code, M-
// prefixes ESC.
func (k Key) appendChar(dst []byte) []byte {
	if k.mods&ModAlt != 0 {
		dst = append(dst, 0x1b)
	}
	if k.mods&ModCtrl != 0 {
		c, _ := ctrlByte(k.r)
		return append(dst, c)
	}
	return append(dst, string(k.r)...)
}

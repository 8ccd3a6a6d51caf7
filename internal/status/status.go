package status

import (
	"strconv"
	"strings"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/sanitize"
)

// Link is the state of a viewer's own connection to the relay.
type Link uint8

// Links.
const (
	// Connecting: the first dial has not been answered yet.
	Connecting Link = iota
	// Connected: a leg is up.
	Connected
	// Reconnecting: the leg was lost and the viewer dials again.
	Reconnecting
	// Stopped: the viewer gave up (a refused token, or the session ended).
	Stopped
)

// State is what a viewer knows of its room. The zero value is a viewer
// still connecting.
type State struct {
	// ConnID is this viewer's connection id (its token's jti): its own
	// entry in Members shows as "you". Empty: none is marked.
	ConnID string
	// Link is this viewer's connection; Lane reports a leg on the
	// degraded lane (SSE down, POST up) rather than a WebSocket.
	Link Link
	Lane bool
	// Room is the room's state as last reported ("" before the first).
	Room attachwire.RoomStatus
	// PenKnown reports that a pen message has arrived; PenMine that this
	// viewer holds the pen, PenUser and PenConn who does (empty: nobody).
	PenKnown bool
	PenMine  bool
	PenUser  string
	PenConn  string
	// ReadOnly reports that the host made the session read-only.
	ReadOnly bool
	// Sharer marks the line of the terminal that shares the session
	// (`ptyhost share`): its lost connection is the relay being
	// unreachable, since the program goes on here regardless.
	Sharer bool
	// Members is the room's presence list as last reported.
	Members []attachwire.Member
	// Total is how many are in the room when Members names only some of
	// them (a large room's presence_count); below len(Members), Members
	// is everyone.
	Total int
	// Message is a passing message (what the person just caused, or what
	// the relay said): shown first, and cut at a word when space is short.
	Message string
}

// Kind names a part of the line.
type Kind string

// Kinds of Part, in the order the line shows them.
const (
	KindMessage  Kind = "message"
	KindRoom     Kind = "room"
	KindCarrier  Kind = "carrier"
	KindPen      Kind = "pen"
	KindPresence Kind = "presence"
)

// Part is one part of the line: its kind and its text as fitted.
type Part struct {
	Kind Kind
	Text string
	// Class is a one-word class for the part's look (the room's state,
	// "you" for the pen held by this viewer), "" for none.
	Class string
}

// Separator joins the parts of a line.
const Separator = " · "

// MaxName bounds a user id shown, in runes.
const MaxName = 32

// Persistent reports whether s describes a condition the person must go
// on seeing until it ends (the connection or the host lost, the room
// gone), as opposed to a change shown for a moment.
func (s State) Persistent() bool {
	switch {
	case s.Link == Reconnecting || s.Link == Stopped:
		return true
	case s.Room == attachwire.RoomHostReconnecting || s.Room == attachwire.RoomHostGone:
		return true
	}
	return false
}

// Line returns the status line for s in at most width cells (width ≤ 0:
// no limit).
func Line(s State, width int) string {
	return Join(Parts(s, width))
}

// Join joins parts into a line.
func Join(parts []Part) string {
	var b strings.Builder
	for i, p := range parts {
		if i > 0 {
			b.WriteString(Separator)
		}
		b.WriteString(p.Text)
	}
	return b.String()
}

// Parts returns the parts of the line for s, fitted together into width
// cells (width ≤ 0: no limit); a part shortened to nothing is left out.
func Parts(s State, width int) []Part {
	ps := candidates(s)
	fits := func() bool { return width <= 0 || lineWidth(ps) <= width }
	// The schedule: what gives way first. Each step moves one part to
	// shorter forms until the line fits or the step's limit is reached.
	for _, step := range []struct {
		kind Kind
		keep int // forms left unused at the end of the part's list
	}{
		{KindPresence, 2}, // names give way to "+N", down to the count alone
		{KindPresence, 1}, // gone
		{KindRoom, 1},     // the short form
		{KindCarrier, 2},  // the short form
		{KindCarrier, 1},  // gone
		{KindPen, 1},      // gone: a message is what the person looks at now
		{KindMessage, 2},  // cut at words, down to the first word
		{KindMessage, 1},  // gone: the room's short form stays
	} {
		for i := range ps {
			p := &ps[i]
			if p.kind != step.kind {
				continue
			}
			for !fits() && p.at < len(p.forms)-step.keep {
				p.at++
			}
		}
	}
	var out []Part
	for _, p := range ps {
		if t := p.forms[p.at]; t != "" {
			out = append(out, Part{Kind: p.kind, Text: t, Class: p.class})
		}
	}
	if width > 0 && lineWidth(ps) > width && len(out) > 0 {
		// Only the room's shortest form is left and even it is too wide:
		// a terminal a few cells wide.
		out = out[:1]
		out[0].Text = cut(out[0].Text, width)
	}
	return out
}

// part is a Part with its forms, longest first; the last may be "" (the
// part can go). at is the form in use.
type part struct {
	kind  Kind
	class string
	forms []string
	at    int
}

func candidates(s State) []part {
	var ps []part
	if m := sanitize.UIString(s.Message, 0); strings.TrimSpace(m) != "" {
		ps = append(ps, part{kind: KindMessage, forms: append(wordCuts(m), "")})
	}
	long, short := roomText(s)
	ps = append(ps, part{kind: KindRoom, class: roomClass(s), forms: []string{long, short}})
	if s.Lane && s.Link == Connected {
		ps = append(ps, part{kind: KindCarrier, forms: []string{"SSE fallback", "SSE", ""}})
	}
	ps = append(ps, penPart(s))
	if s.Link == Connected && len(s.Members) > 0 {
		ps = append(ps, part{kind: KindPresence, forms: presenceForms(s)})
	}
	return ps
}

func roomText(s State) (long, short string) {
	switch s.Link {
	case Connecting:
		return "connecting…", "connecting…"
	case Reconnecting:
		if s.Sharer {
			return "relay unreachable: reconnecting…", "reconnecting…"
		}
		return "connection to the relay lost: reconnecting…", "reconnecting…"
	case Stopped:
		if s.Room == attachwire.RoomEnded {
			return "ended", "ended"
		}
		return "stopped", "stopped"
	}
	switch s.Room {
	case attachwire.RoomHostReconnecting:
		return "host reconnecting…", "host away"
	case attachwire.RoomHostGone:
		return "host gone: the session is unreachable", "host gone"
	case attachwire.RoomDegraded:
		return "degraded: output may lag", "degraded"
	case attachwire.RoomEnded:
		return "ended", "ended"
	case attachwire.RoomLive, "":
		return "live", "live"
	}
	r := Name(string(s.Room), 0)
	return r, r
}

// roomClass is the room part's class: the room's state, or the viewer's
// own when that is what the part says.
func roomClass(s State) string {
	switch s.Link {
	case Connecting:
		return "connecting"
	case Reconnecting:
		return "offline"
	case Stopped:
		if s.Room == attachwire.RoomEnded {
			return "ended"
		}
		return "stopped"
	}
	switch s.Room {
	case attachwire.RoomHostReconnecting, attachwire.RoomHostGone, attachwire.RoomDegraded, attachwire.RoomEnded:
		return string(s.Room)
	}
	return "live"
}

func penPart(s State) part {
	p := penPartHeld(s)
	if s.ReadOnly {
		p.forms = append([]string{p.forms[0] + " (read-only)"}, p.forms...)
	}
	return p
}

func penPartHeld(s State) part {
	switch {
	case s.PenMine:
		return part{kind: KindPen, class: "you", forms: []string{"pen: you", ""}}
	case s.PenKnown && s.PenConn == "" && s.PenUser == "":
		return part{kind: KindPen, forms: []string{"pen: free", ""}}
	case s.PenKnown:
		for _, m := range s.Members {
			if m.ConnID != "" && m.ConnID == s.PenConn {
				return part{kind: KindPen, forms: []string{"pen: " + Label(m, s.Members), ""}}
			}
		}
		return part{kind: KindPen, forms: []string{"pen: " + Name(s.PenUser, MaxName), ""}}
	}
	// No pen message yet: the presence list's flags are all there is.
	for _, m := range s.Members {
		if m.Driving {
			return part{kind: KindPen, forms: []string{"pen: " + Label(m, s.Members), ""}}
		}
	}
	return part{kind: KindPen, forms: []string{"pen: free", ""}}
}

// presenceForms lists "N here: a, b (driving), c", then with ever fewer
// names and "+K" for the rest, then "N here", then nothing.
func presenceForms(s State) []string {
	names := make([]string, len(s.Members))
	for i, m := range s.Members {
		n := Label(m, s.Members)
		if s.ConnID != "" && m.ConnID == s.ConnID {
			n = "you"
		}
		if driving(s, m) {
			n += " (driving)"
		}
		names[i] = n
	}
	total := max(s.Total, len(names))
	count := strconv.Itoa(total) + " here"
	forms := make([]string, 0, len(names)+2)
	for k := len(names); k >= 1; k-- {
		f := count + ": " + strings.Join(names[:k], ", ")
		if k < total {
			f += ", +" + strconv.Itoa(total-k)
		}
		forms = append(forms, f)
	}
	return append(forms, count, "")
}

// driving reports whether m holds the pen: by the pen messages once one
// has come (they are newer than a presence list's flags), else by m's
// flag.
func driving(s State, m attachwire.Member) bool {
	if s.PenKnown {
		return m.ConnID != "" && m.ConnID == s.PenConn
	}
	return m.Driving
}

// GuestMark follows a guest's name: the name is what the guest typed, not
// an identity the relay vouches for.
const GuestMark = " (guest)"

// suffixRunes is how much of a connId tells apart members shown alike.
const suffixRunes = 4

// Label is how m is shown among members: its name (else its userId),
// made safe by Name, with GuestMark for a guest; when another of members
// would show the same, " #" and the first characters of its connId are
// added, as many as tell them apart (at least suffixRunes), so two
// people who typed the same name are two entries.
func Label(m attachwire.Member, members []attachwire.Member) string {
	base := baseLabel(m)
	var twins []string
	for _, o := range members {
		if o.ConnID != m.ConnID && baseLabel(o) == base {
			twins = append(twins, o.ConnID)
		}
	}
	if len(twins) == 0 {
		return base
	}
	id := []rune(Name(m.ConnID, 0))
	n := min(suffixRunes, len(id))
	for ; n < len(id); n++ {
		clash := false
		for _, t := range twins {
			if strings.HasPrefix(Name(t, 0), string(id[:n])) {
				clash = true
				break
			}
		}
		if !clash {
			break
		}
	}
	return base + " #" + string(id[:n])
}

// baseLabel is m's name or userId, with the guest mark.
func baseLabel(m attachwire.Member) string {
	n := m.Name
	if n == "" {
		n = m.UserID
	}
	n = Name(n, MaxName)
	if m.Guest {
		n += GuestMark
	}
	return n
}

// Name makes s, which another party chose, safe to show in the line:
// displayable (sanitize.UIString), at most maxRunes runes (≤ 0: no
// limit), and without the separator's dot, so that it cannot pose as
// another part. An empty name is "?".
func Name(s string, maxRunes int) string {
	s = strings.ReplaceAll(sanitize.UIString(s, maxRunes), "·", ".")
	if strings.TrimSpace(s) == "" {
		return "?"
	}
	return s
}

// wordCuts lists m, then m cut after ever fewer words with "…", down to
// its first word.
func wordCuts(m string) []string {
	forms := []string{m}
	for i := len(m) - 1; i > 0; i-- {
		if m[i] == ' ' && m[i-1] != ' ' {
			forms = append(forms, strings.TrimRight(m[:i], " ,:;")+"…")
		}
	}
	return forms
}

func lineWidth(ps []part) int {
	w, n := 0, 0
	for _, p := range ps {
		if t := p.forms[p.at]; t != "" {
			w += Width(t)
			n++
		}
	}
	if n > 1 {
		w += (n - 1) * Width(Separator)
	}
	return w
}

// Width is the cells s takes at most: one a rune below U+1100 (where no
// character is wide), two from there on.
func Width(s string) int {
	w := 0
	for _, r := range s {
		w++
		if r >= 0x1100 {
			w++
		}
	}
	return w
}

// cut returns the longest prefix of s that is at most width cells.
func cut(s string, width int) string {
	w := 0
	for i, r := range s {
		rw := Width(string(r))
		if w+rw > width {
			return s[:i]
		}
		w += rw
	}
	return s
}

package status

import (
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
)

func members(ms ...string) []attachwire.Member {
	var out []attachwire.Member
	for i := 0; i+1 < len(ms); i += 2 {
		out = append(out, attachwire.Member{UserID: ms[i], ConnID: ms[i+1]})
	}
	return out
}

func TestLine(t *testing.T) {
	live := State{Link: Connected, Room: attachwire.RoomLive}
	with := func(f func(*State)) State {
		s := live
		f(&s)
		return s
	}
	for _, tc := range []struct {
		name  string
		s     State
		width int
		want  string
	}{
		{"connecting", State{}, 0, "connecting… · pen: free"},
		{"live, nobody", with(func(s *State) { s.PenKnown = true }), 0, "live · pen: free"},
		// The pen held here and the presence list say the same thing: the
		// presence flag that lags behind the pen message is overruled.
		{"mine", with(func(s *State) {
			s.ConnID, s.PenKnown, s.PenMine, s.PenConn, s.PenUser = "c1", true, true, "c1", "ann"
			s.Members = []attachwire.Member{{UserID: "ann", ConnID: "c1"}, {UserID: "bob", ConnID: "c2", Driving: true}}
		}), 0, "live · pen: you · 2 here: you (driving), bob"},
		{"released", with(func(s *State) {
			s.ConnID, s.PenKnown = "c1", true
			s.Members = []attachwire.Member{{UserID: "ann", ConnID: "c1", Driving: true}}
		}), 0, "live · pen: free · 1 here: you"},
		{"another drives", with(func(s *State) {
			s.PenKnown, s.PenConn, s.PenUser = true, "c3", "carol"
			s.Members = members("ann", "c1", "carol", "c3")
		}), 0, "live · pen: carol · 2 here: ann, carol (driving)"},
		{"before any pen message the flags speak", with(func(s *State) {
			s.Members = []attachwire.Member{{UserID: "dora", ConnID: "c4", Driving: true}}
		}), 0, "live · pen: dora · 1 here: dora (driving)"},
		// After a relay restart the viewer reconnects: one room part says
		// so, and the pen stays what was last reported, once.
		{"reconnecting", with(func(s *State) {
			s.Link, s.PenKnown, s.PenConn, s.PenUser = Reconnecting, true, "c3", "carol"
			s.Members = members("carol", "c3")
		}), 0, "connection to the relay lost: reconnecting… · pen: carol"},
		{"host away", with(func(s *State) { s.Room = attachwire.RoomHostReconnecting; s.PenKnown = true }), 0, "host reconnecting… · pen: free"},
		{"host gone", with(func(s *State) { s.Room = attachwire.RoomHostGone; s.PenKnown = true }), 0, "host gone: the session is unreachable · pen: free"},
		{"lane", with(func(s *State) { s.Lane, s.PenKnown = true, true }), 0, "live · SSE fallback · pen: free"},
		{"message first", with(func(s *State) { s.Message = "read-only: Ctrl-] g takes the pen"; s.PenKnown = true }), 0,
			"read-only: Ctrl-] g takes the pen · live · pen: free"},
		// Narrow: whole names go, then the list, then parts; nothing is cut
		// in a name.
		{"names give way", with(func(s *State) {
			s.PenKnown = true
			s.Members = members("dorothea", "c1", "bob", "c2", "carol", "c3")
		}), 39, "live · pen: free · 3 here: dorothea, +2"},
		{"count only", with(func(s *State) {
			s.PenKnown = true
			s.Members = members("dorothea", "c1", "bob", "c2", "carol", "c3")
		}), 28, "live · pen: free · 3 here"},
		{"presence goes", with(func(s *State) {
			s.PenKnown, s.PenUser, s.PenConn = true, "dorothea", "c1"
			s.Members = members("dorothea", "c1")
		}), 22, "live · pen: dorothea"},
		{"the pen gives way to a message, then it is cut at a word", with(func(s *State) {
			s.Message, s.PenKnown = "input waits for the relay to acknowledge what went before", true
			s.Members = members("ann", "c1")
		}), 36, "input waits for the relay… · live"},
		{"short room", with(func(s *State) { s.Room = attachwire.RoomHostGone; s.PenKnown = true }), 24, "host gone · pen: free"},
		{"tiny", with(func(s *State) { s.Room = attachwire.RoomHostGone; s.PenKnown = true }), 5, "host "},
		{"reconnecting narrow", with(func(s *State) { s.Link = Reconnecting; s.PenKnown = true }), 20, "reconnecting…"},
		// Hostile names: controls, bidi overrides and the separator are
		// gone, and a long name is bounded.
		{"hostile names", with(func(s *State) {
			s.PenKnown, s.PenConn, s.PenUser = true, "c1", "mal\x1b[31m\u202elory"
			s.Members = members("mal\x1b[31m\u202elory", "c1", "x · pen: you", "c2", strings.Repeat("w", 100), "c3", "", "c4")
		}), 0, "live · pen: mal[31mlory · 4 here: mal[31mlory (driving), x . pen: you, " + strings.Repeat("w", MaxName) + ", ?"},
		{"wide names counted wide", with(func(s *State) { // and "…" too: it is wide in some fonts
			s.PenKnown = true
			s.Members = members("太郎", "c1", "花子", "c2")
		}), 35, "live · pen: free · 2 here: 太郎, +1"},
		// A large room seen in counts: the total, the few names sent, and
		// the rest as a number.
		{"counts", with(func(s *State) {
			s.PenKnown = true
			s.Members, s.Total = members("ann", "c1", "bob", "c2"), 1200
		}), 0, "live · pen: free · 1200 here: ann, bob, +1198"},
		{"counts narrow", with(func(s *State) {
			s.PenKnown = true
			s.Members, s.Total = members("ann", "c1", "bob", "c2"), 1200
		}), 40, "live · pen: free · 1200 here: ann, +1199"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Line(tc.s, tc.width)
			if got != tc.want {
				t.Fatalf("Line(%d) = %q, want %q", tc.width, got, tc.want)
			}
			if tc.width > 0 && Width(got) > tc.width {
				t.Fatalf("Line(%d) = %q is %d cells wide", tc.width, got, Width(got))
			}
		})
	}
}

// At every width the line fits, and each part is one of its own forms: a
// name shows whole or not at all.
func TestLineFitsEveryWidth(t *testing.T) {
	s := State{Link: Connected, Room: attachwire.RoomDegraded, Lane: true, ConnID: "c2",
		PenKnown: true, PenUser: "alexandra", PenConn: "c1", Message: "relay: backpressure: you are behind",
		Members: members("alexandra", "c1", "you-self", "c2", "bartholomew", "c3")}
	for w := 1; w <= 140; w++ {
		got := Line(s, w)
		if Width(got) > w {
			t.Fatalf("width %d: %q overflows", w, got)
		}
		if w >= 8 && strings.Contains(got, "alex") && !strings.Contains(got, "alexandra") {
			t.Fatalf("width %d: %q cuts a name", w, got)
		}
		if w >= 8 && strings.Contains(got, "barth") && !strings.Contains(got, "bartholomew") {
			t.Fatalf("width %d: %q cuts a name", w, got)
		}
	}
}

func TestPersistent(t *testing.T) {
	for _, tc := range []struct {
		s    State
		want bool
	}{
		{State{Link: Connected, Room: attachwire.RoomLive}, false},
		{State{Link: Connected, Room: attachwire.RoomDegraded}, false},
		{State{Link: Connected, Room: attachwire.RoomHostReconnecting}, true},
		{State{Link: Connected, Room: attachwire.RoomHostGone}, true},
		{State{Link: Reconnecting, Room: attachwire.RoomLive}, true},
		{State{Link: Stopped}, true},
	} {
		if got := tc.s.Persistent(); got != tc.want {
			t.Errorf("%+v: Persistent %v, want %v", tc.s, got, tc.want)
		}
	}
}

// Members show their names (else user ids) marked as guests' where they
// are, and two that would show alike get the shortest distinct prefix of
// their connIds, at least four characters.
func TestLabel(t *testing.T) {
	ms := []attachwire.Member{
		{UserID: "guest-1", ConnID: "3f2a9c", Name: "Ada", Guest: true},
		{UserID: "guest-2", ConnID: "9c01aa", Name: "Ada", Guest: true},
		{UserID: "ada", ConnID: "7777"},
		{UserID: "bob", ConnID: "b1"},
		{UserID: "guest-3", ConnID: "abcdef1", Name: "Cy", Guest: true},
		{UserID: "guest-4", ConnID: "abcdef2", Name: "Cy", Guest: true},
		{UserID: "x", ConnID: "c9", Name: "Ann · admin"},
	}
	for i, want := range []string{"Ada (guest) #3f2a", "Ada (guest) #9c01", "ada", "bob", "Cy (guest) #abcdef1", "Cy (guest) #abcdef2", "Ann . admin"} {
		if got := Label(ms[i], ms); got != want {
			t.Errorf("Label(%+v) = %q, want %q", ms[i], got, want)
		}
	}
	s := State{Link: Connected, Room: attachwire.RoomLive, PenKnown: true, PenConn: "9c01aa", PenUser: "guest-2", ReadOnly: false,
		Members: ms[:3]}
	if got, want := Line(s, 0), "live · pen: Ada (guest) #9c01 · 3 here: Ada (guest) #3f2a, Ada (guest) #9c01 (driving), ada"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
	s.PenConn, s.PenUser, s.ReadOnly = "", "", true
	if got, want := Line(s, 0), "live · pen: free (read-only) · 3 here: Ada (guest) #3f2a, Ada (guest) #9c01, ada"; got != want {
		t.Errorf("line %q, want %q", got, want)
	}
}

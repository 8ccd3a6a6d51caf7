package engine

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire/sanitize"
	"github.com/ptyhost/ptyhost/internal/term/termtest"
)

// sanitized returns what a viewer's terminal receives for data: the
// sanitizer's output in the Viewer profile.
func sanitized(data []byte) []byte {
	s := sanitize.New(sanitize.Options{})
	return s.Append(nil, data)
}

// sameAsViewer checks that the engine's screen (text, attributes, cursor)
// for data is the one it shows for the sanitizer's output of data, i.e.
// the one a viewer sees.
func sameAsViewer(tb testing.TB, cols, rows int, data []byte) {
	tb.Helper()
	out := sanitized(data)
	if d := termtest.Diff(engineScreen(tb, cols, rows, out), engineScreen(tb, cols, rows, data)); len(d) > 0 {
		tb.Errorf("input %q, sanitized %q: the engine's screen differs from the viewer's:\n%s", data, out, strings.Join(d, "\n"))
	}
}

// TestSanitizerStructureRules checks the parser rules the engine shares
// with the sanitizer: C1 controls, raw or UTF-8-encoded, act as their
// 7-bit forms, and a non-ASCII byte makes a sequence invalid. Each input
// must give the same screen, title and answers as its 7-bit equivalent,
// whole and split at every byte; where the sanitizer passes everything
// the input does, also the screen of the sanitizer's output.
func TestSanitizerStructureRules(t *testing.T) {
	tests := []struct {
		name, in, equiv string
		viewer          bool // compare with the sanitizer's output too
	}{
		{"reviewer raw csi", "A\x9b2JB", "A\x1b[2JB", true},
		{"reviewer non-ascii in csi", "A\x1b[2éJB\x1b[1;31世mC", "ABC", true},
		{"utf8 c1 csi", "A\xc2\x9b2JB", "A\x1b[2JB", true},
		{"raw c1 sgr", "a\x9b1;31mb\x9b0mc", "a\x1b[1;31mb\x1b[0mc", true},
		{"nel ind ri", "ab\x85c\x84d\x8de", "ab\x1bEc\x1bDd\x1bMe", true},
		{"utf8 nel ind ri", "ab\xc2\x85c\xc2\x84d\xc2\x8de", "ab\x1bEc\x1bDd\x1bMe", true},
		{"hts", "\x1b[3g\x1b[4G\x88\r\tX", "\x1b[3g\x1b[4G\x1bH\r\tX", true},
		{"osc ended by st", "a\x9d2;title\x9cb", "a\x1b]2;title\x1b\\b", true},
		{"osc ended by utf8 st", "a\x1b]2;t\xc2\x9cb", "a\x1b]2;t\x1b\\b", true},
		{"osc query ended by st", "\x9d11;?\x9c", "\x1b]11;?\x1b\\", false},
		{"c1 aborts osc", "a\x1b]2;t\x9b31mb", "a\x1b]2;t\x1b[31mb", true},
		{"st after esc in osc", "a\x1b]2;t\x1b\x9cb", "a\x1b]2;t\x1b\x1b\\b", true},
		{"dcs sos pm apc", "a\x90q#0~\x9cb\x98x\x9cc\x9ey\x9cd\x9fz\x9ce", "abcde", true},
		{"dcs query ended by st", "\x90$qm\x9c", "\x1bP$qm\x1b\\", false},
		{"c1 in csi restarts", "a\x1b[1;\x9b31mb", "a\x1b[31mb", true},
		{"c1 after esc", "a\x1b\x9b31mb", "a\x1b[31mb", true},
		{"lone st", "a\x9cb\xc2\x9cc", "abc", true},
		{"other c1 ignored", "a\x80\x81\x82\x83\x86\x87\x89\x8a\x8b\x8c\x8e\x8f\x91\x92\x93\x94\x95\x96\x97\x99\x9ab", "ab", true},
		{"utf8 continuation in 0x80-0x9f", "Ü😀€\u0100x", "Ü😀€\u0100x", true},
		{"non-ascii in esc", "a\x1bé7b\x1b(é0x", "abx", true},
		{"non-ascii in csi intermediate", "a\x1b[2 éqb", "ab", true},
		{"invalid utf8 in csi", "a\x1b[2\xff3Gb\x1b[\xe2Gc", "abc", true},
		{"bad continuation is not c1", "a\xe0\x9b2Jb\xf4\x90x\x9cy", "a\x1b[2Jb\x1bPx\x1b\\y", false},
		{"invalid utf8 drops title", "\x1b]2;ok\x07\x1b]2;a\xffb\x07", "\x1b]2;ok\x07", false},
		{"non-ascii in dcs header", "\x1bP\xc3\xa9$qm\x1b\\x", "x", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			const cols, rows = 20, 4
			e, ans := newTest(t, cols, rows, 10)
			e.Write([]byte(tt.in))
			w, wantAns := newTest(t, cols, rows, 10)
			w.Write([]byte(tt.equiv))
			got, want := screenOf(e), screenOf(w)
			if !reflect.DeepEqual(got, want) || e.Title() != w.Title() || !reflect.DeepEqual(*ans, *wantAns) {
				t.Errorf("%q gives rows %q title %q answers %q; %q gives rows %q title %q answers %q",
					tt.in, gridText(got), e.Title(), *ans, tt.equiv, gridText(want), w.Title(), *wantAns)
			}
			checkInvariants(t, got)
			checkSplits(t, cols, rows, []byte(tt.in))
			if tt.viewer {
				sameAsViewer(t, cols, rows, []byte(tt.in))
			}
		})
	}
}

// TestSanitizerStructureRandom feeds random mixes of text, C1 controls
// (raw and UTF-8-encoded), non-ASCII characters and fragments of
// sequences the sanitizer passes: the engine's screen must be the one it
// shows for the sanitizer's output, whatever the split of the input.
func TestSanitizerStructureRandom(t *testing.T) {
	tokens := []string{
		"A", "xyz", "é", "Ü", "😀", "世", "\r\n", "\t", "\b", "\a", "\x18",
		"\x1b", "\x1b[", "\x1b]2;", "\x1b\\", "\x1b7", "\x1b8", "\x1b(0", "\x1b(B",
		"0", "1", "2", "3", ";", "31", "44",
		"A", "B", "C", "D", "G", "H", "J", "K", "m", "@", "P", "X",
	}
	for c := 0x80; c < 0xA0; c++ {
		tokens = append(tokens, string([]byte{byte(c)}), string(rune(c)))
	}
	const cols, rows = 16, 5
	for seed := range uint64(300) {
		r := rand.New(rand.NewPCG(seed, 0xc1))
		var b strings.Builder
		for range 10 + r.IntN(60) {
			b.WriteString(tokens[r.IntN(len(tokens))])
		}
		data := []byte(b.String())
		sameAsViewer(t, cols, rows, data)
		if t.Failed() {
			return
		}
		if seed%10 == 0 {
			checkSplits(t, cols, rows, data)
		}
	}
}

package termtest

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"reflect"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term"
)

// maxHalves is how many ways SplitDiff halves its input: at every offset
// of an input up to this long, at this many evenly spaced offsets of a
// longer one (a recording), so that the check stays linear in practice.
const maxHalves = 256

// splitSeeds is how many seeded random chunkings SplitDiff tries.
const splitSeeds = 4

// SplitDiff feeds data to fresh terminals from newTerm, whole and then
// split every way the house style asks of streaming code (byte by byte,
// halved at every offset (at maxHalves of them for longer input), in
// seeded random chunks of 1 to 64 bytes), and
// returns a description of the first split whose screen (grids, cursor,
// modes, scrollback) or answers differ from the whole write's, or "" when
// none does. The session host feeds the terminal in reads whose
// boundaries the child does not choose, and promises that replaying
// frames 1..N gives the snapshot at N: a backend must pass this for that
// promise to hold.
func SplitDiff(newTerm func(term.Options) (term.Terminal, error), opts term.Options, data []byte) (string, error) {
	want, wantAns, err := feedSplit(newTerm, opts, [][]byte{data})
	if err != nil {
		return "", err
	}
	try := func(name string, chunks [][]byte) (string, error) {
		got, gotAns, err := feedSplit(newTerm, opts, chunks)
		switch {
		case err != nil:
			return "", err
		case !reflect.DeepEqual(got, want):
			return fmt.Sprintf("%s: screen differs from the whole write's", name), nil
		case !bytes.Equal(gotAns, wantAns):
			return fmt.Sprintf("%s: answers %q, whole write %q", name, gotAns, wantAns), nil
		}
		return "", nil
	}
	bytewise := make([][]byte, len(data))
	for i := range data {
		bytewise[i] = data[i : i+1]
	}
	if d, err := try("byte by byte", bytewise); d != "" || err != nil {
		return d, err
	}
	step := max(1, len(data)/maxHalves)
	for i := 1; i < len(data); i += step {
		if d, err := try(fmt.Sprintf("halved at %d", i), [][]byte{data[:i], data[i:]}); d != "" || err != nil {
			return d, err
		}
	}
	for seed := range uint64(splitSeeds) {
		rng := rand.New(rand.NewPCG(seed, 0x5eed))
		var chunks [][]byte
		for rest := data; len(rest) > 0; {
			n := min(len(rest), 1+rng.IntN(16))
			chunks = append(chunks, rest[:n])
			rest = rest[n:]
		}
		if d, err := try(fmt.Sprintf("random chunks, seed %d", seed), chunks); d != "" || err != nil {
			return d, err
		}
	}
	return "", nil
}

// CheckSplits fails tb unless SplitDiff finds no split of data that
// changes newTerm's screen or answers.
func CheckSplits(tb testing.TB, newTerm func(term.Options) (term.Terminal, error), opts term.Options, data []byte) {
	tb.Helper()
	d, err := SplitDiff(newTerm, opts, data)
	if err != nil {
		tb.Fatal(err)
	}
	if d != "" {
		tb.Errorf("%q: %s", data, d)
	}
}

// feedSplit writes chunks to a fresh terminal and returns its screen and
// the answers it gave.
func feedSplit(newTerm func(term.Options) (term.Terminal, error), opts term.Options, chunks [][]byte) (*attachwire.Screen, []byte, error) {
	var answers []byte
	opts.Answer = func(p []byte) { answers = append(answers, p...) }
	t, err := newTerm(opts)
	if err != nil {
		return nil, nil, fmt.Errorf("termtest: new terminal: %w", err)
	}
	for _, c := range chunks {
		t.Write(c)
	}
	var s attachwire.Screen
	t.Screen(&s)
	if err := t.Close(); err != nil {
		return nil, nil, fmt.Errorf("termtest: close: %w", err)
	}
	return &s, answers, nil
}

// SplitCase is an input for SplitDiff.
type SplitCase struct {
	Name string
	Data []byte
}

// SplitCases returns short inputs that cross every structure a backend
// decodes statefully: UTF-8 characters and grapheme clusters, escape,
// control and string sequences, C1 controls, queries and their answers,
// wrapping and scrolling into the scrollback.
func SplitCases() []SplitCase {
	cases := []struct{ name, data string }{
		{"ascii", "hello, world\r\nsecond line"},
		{"wrap", "0123456789abcdefghijklmnopqrstuvwxyz0123456789ABCDEFGHIJ"},
		{"scrollback", "1\r\n2\r\n3\r\n4\r\n5\r\n6\r\n7\r\n8\r\n9\r\n10\r\n11\r\n12"},
		{"two-byte", "caf\u00e9 na\u00efve \u00fcber"},
		{"wide", "\u65e5\u672c\u8a9e\u306e\u6587\u5b57"},
		{"four-byte", "\U0001F600 \U0001F680 \U00010348"},
		{"combining", "e\u0301 a\u0300 o\u0302\u0323"},
		{"variation-selector", "\u2764\ufe0f \u263a\ufe0f"},
		{"zwj", "\U0001F468\u200d\U0001F469\u200d\U0001F467 x"},
		{"regional", "\U0001F1EB\U0001F1F7\U0001F1EF\U0001F1F5"},
		{"sgr", "\x1b[1;31mred\x1b[0m \x1b[38;5;208mx\x1b[38;2;1;2;3;48:2::4:5:6my\x1b[m"},
		{"cursor", "abc\x1b[2;5Hxy\x1b[3Dz\x1b[K\x1b[1;1H\x1b[2J!"},
		{"modes", "\x1b[?1049h\x1b[?25l\x1b[4halt\x1b[?1049l\x1b[?2004h\x1b[?1000h"},
		{"osc-title", "\x1b]0;t\u00eftle\x07\x1b]2;other\x1b\\text"},
		{"queries", "\x1b[c\x1b[>c\x1b[6n\x1b[?2004$p\x1bP$qm\x1b\\\x1b[>0q"},
		{"c1", "a\xc2\x9b31mb\x9b0mc\xc2\x85d"},
		{"invalid-utf8", "a\xff\xc3b\xe0\x9b1mc\xed\xa0\x80d"},
		{"cancel", "\x1b[12\x18x\x1b]0;no\x1ay"},
		{"charset", "\x1b(0lqk\x1b(B\x0ex\x0fy"},
		{"tabs-rep", "a\tb\x1b[3b\x1bHc\r\x1b[2I."},
	}
	out := make([]SplitCase, len(cases))
	for i, c := range cases {
		out[i] = SplitCase{c.name, []byte(c.data)}
	}
	return out
}

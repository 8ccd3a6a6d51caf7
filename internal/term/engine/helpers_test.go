package engine

import (
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term"
)

// newTest returns an engine whose answers are collected in *answers.
func newTest(tb testing.TB, cols, rows, scrollback int) (*Engine, *[]string) {
	tb.Helper()
	var answers []string
	e := New(term.Options{Cols: cols, Rows: rows, Scrollback: scrollback, Version: "1.2.3",
		Answer: func(p []byte) { answers = append(answers, string(p)) }})
	tb.Cleanup(func() { e.Close() })
	return e, &answers
}

func screenOf(e *Engine) *attachwire.Screen {
	var s attachwire.Screen
	e.Screen(&s)
	return &s
}

// rowText renders row r of a grid as text: continuation cells are
// skipped, so a wide glyph reads as itself.
func rowText(s *attachwire.Screen, grid []attachwire.Cell, r int) string {
	var b strings.Builder
	for _, c := range grid[r*s.Cols : (r+1)*s.Cols] {
		b.WriteString(c.Content)
	}
	return b.String()
}

func lineText(cells []attachwire.Cell) string {
	var b strings.Builder
	for _, c := range cells {
		b.WriteString(c.Content)
	}
	return b.String()
}

// gridText renders every row of the active grid, trailing spaces trimmed.
func gridText(s *attachwire.Screen) []string {
	grid := s.Primary
	if s.Active == attachwire.BufferAlternate {
		grid = s.Alt
	}
	out := make([]string, s.Rows)
	for r := range s.Rows {
		out[r] = strings.TrimRight(rowText(s, grid, r), " ")
	}
	return out
}

// splits feeds data to fresh engines whole, byte by byte, halved at every
// offset (for short inputs) and in seeded random chunks, and checks that
// every way gives the same screen and answers.
func checkSplits(tb testing.TB, cols, rows int, data []byte) {
	tb.Helper()
	run := func(chunks [][]byte) (*attachwire.Screen, []string) {
		e, ans := newTest(tb, cols, rows, 50)
		for _, c := range chunks {
			e.Write(c)
		}
		return screenOf(e), *ans
	}
	want, wantAns := run([][]byte{data})
	var ways [][][]byte
	var bytewise [][]byte
	for i := range data {
		bytewise = append(bytewise, data[i:i+1])
	}
	ways = append(ways, bytewise)
	if len(data) <= 64 {
		for i := 1; i < len(data); i++ {
			ways = append(ways, [][]byte{data[:i], data[i:]})
		}
	}
	rng := rand.New(rand.NewPCG(1, uint64(len(data))))
	for range 4 {
		var chunks [][]byte
		for rest := data; len(rest) > 0; {
			n := min(1+rng.IntN(7), len(rest))
			chunks = append(chunks, rest[:n])
			rest = rest[n:]
		}
		ways = append(ways, chunks)
	}
	for i, w := range ways {
		got, gotAns := run(w)
		if !reflect.DeepEqual(got, want) || !reflect.DeepEqual(gotAns, wantAns) {
			tb.Fatalf("split %d of %q: screen or answers differ from the whole write\n got %q %v\nwant %q %v", i, data, gridText(got), gotAns, gridText(want), wantAns)
		}
	}
}

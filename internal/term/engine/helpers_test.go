package engine

import (
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term"
	"github.com/ptyhost/ptyhost/internal/term/termtest"
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

// checkSplits feeds data to fresh engines whole and split every way
// termtest.SplitDiff tries, and checks that every way gives the same
// screen and answers.
func checkSplits(tb testing.TB, cols, rows int, data []byte) {
	tb.Helper()
	termtest.CheckSplits(tb, newEngine, term.Options{Cols: cols, Rows: rows, Scrollback: 50, Version: "1.2.3"}, data)
}

// newEngine is New as a termtest constructor.
func newEngine(o term.Options) (term.Terminal, error) { return New(o), nil }

package testkit

import (
	"strings"

	"github.com/ptyhost/ptyhost/attachwire"
)

// Row returns row r of grid, a row-major grid cols cells wide, as text
// with trailing blanks trimmed.
func Row(grid []attachwire.Cell, cols, r int) string {
	return cellsText(grid[r*cols : (r+1)*cols])
}

// Lines returns the rows of scr's active buffer (the alternate screen when
// it is active and present, else the primary) as text, trailing blanks
// trimmed.
func Lines(scr attachwire.Screen) []string {
	grid := scr.Primary
	if scr.Active == attachwire.BufferAlternate && scr.Alt != nil {
		grid = scr.Alt
	}
	lines := make([]string, scr.Rows)
	for r := range lines {
		lines[r] = Row(grid, scr.Cols, r)
	}
	return lines
}

// Text returns Lines joined by newlines: what the terminal shows.
func Text(scr attachwire.Screen) string {
	return strings.Join(Lines(scr), "\n")
}

// History returns scr's scrollback lines, oldest first, then the rows of
// its primary buffer, each trimmed of trailing blanks and ended by a
// newline: the whole stream a user could scroll through.
func History(scr attachwire.Screen) string {
	var b strings.Builder
	for _, line := range scr.Scrollback {
		b.WriteString(cellsText(line))
		b.WriteByte('\n')
	}
	for r := range scr.Rows {
		b.WriteString(Row(scr.Primary, scr.Cols, r))
		b.WriteByte('\n')
	}
	return b.String()
}

func cellsText(cells []attachwire.Cell) string {
	var b strings.Builder
	for _, c := range cells {
		b.WriteString(c.Content)
	}
	return strings.TrimRight(b.String(), " ")
}

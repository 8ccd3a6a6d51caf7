package main

import (
	"encoding/json"
	"fmt"
	"io"
	"strings"

	"github.com/ptyhost/ptyhost/attachwire"
)

// writeScreen prints scr in the given format: text (the visible lines,
// trailing blanks and blank lines trimmed), ansi (a repaint: the screen
// with colors, attributes and the cursor) or json (screenJSON).
func writeScreen(w io.Writer, scr *attachwire.Screen, f formatFlag) error {
	var b []byte
	switch f {
	case formatANSI:
		b = appendANSIScreen(nil, scr)
	case formatJSON:
		var err error
		if b, err = json.MarshalIndent(newScreenJSON(scr), "", "  "); err != nil {
			return err
		}
		b = append(b, '\n')
	default:
		b = []byte(screenText(scr))
	}
	_, err := w.Write(b)
	return err
}

// activeCells returns the cells of the buffer the screen shows.
func activeCells(scr *attachwire.Screen) []attachwire.Cell {
	if scr.Active == attachwire.BufferAlternate && scr.Alt != nil {
		return scr.Alt
	}
	return scr.Primary
}

// screenLines returns the visible rows as text, trailing blanks trimmed.
func screenLines(scr *attachwire.Screen) []string {
	cells := activeCells(scr)
	lines := make([]string, 0, scr.Rows)
	for r := 0; r < scr.Rows && (r+1)*scr.Cols <= len(cells); r++ {
		lines = append(lines, rowText(cells[r*scr.Cols:(r+1)*scr.Cols]))
	}
	return lines
}

// rowText joins the contents of a row of cells, skipping wide-glyph
// continuation cells, and trims trailing blanks.
func rowText(row []attachwire.Cell) string {
	var sb strings.Builder
	for _, c := range row {
		switch {
		case c.Style&attachwire.StyleWideCont != 0:
		case c.Content == "":
			sb.WriteByte(' ')
		default:
			sb.WriteString(c.Content)
		}
	}
	return strings.TrimRight(sb.String(), " ")
}

// screenText is the text format: visible lines, one per line, without the
// blank lines at the bottom.
func screenText(scr *attachwire.Screen) string {
	lines := screenLines(scr)
	for len(lines) > 0 && lines[len(lines)-1] == "" {
		lines = lines[:len(lines)-1]
	}
	if len(lines) == 0 {
		return ""
	}
	return strings.Join(lines, "\n") + "\n"
}

// screenJSON is the json format. Lines has exactly Rows entries, top to
// bottom, so that a line's index is its row; columns count cells.
type screenJSON struct {
	Cols       int        `json:"cols"`
	Rows       int        `json:"rows"`
	Buffer     string     `json:"buffer"` // "primary" or "alternate"
	Cursor     cursorJSON `json:"cursor"`
	Modes      modesJSON  `json:"modes"`
	Lines      []lineJSON `json:"lines"`
	Scrollback []string   `json:"scrollback,omitempty"` // oldest first, text only
}

type cursorJSON struct {
	Row     int    `json:"row"` // 0-based
	Col     int    `json:"col"` // 0-based
	Visible bool   `json:"visible"`
	Shape   string `json:"shape"` // default, block, underline, bar
}

type modesJSON struct {
	Echo           string `json:"echo"` // on, off, unknown
	BracketedPaste bool   `json:"bracketedPaste"`
	AppCursorKeys  bool   `json:"appCursorKeys"`
	PendingWrap    bool   `json:"pendingWrap"`
	Focus          bool   `json:"focus"`
	Mouse          string `json:"mouse"`                   // off, normal, highlight, button, any
	MouseEncoding  string `json:"mouseEncoding,omitempty"` // x10, utf8, sgr (when mouse is on)
}

type lineJSON struct {
	Text  string     `json:"text"`            // trailing blanks trimmed
	Spans []spanJSON `json:"spans,omitempty"` // runs of cells not in the default style
}

// spanJSON is a run of cells sharing one non-default style. A color is a
// palette index (a number, 0-255) or "#rrggbb"; absent means the default.
type spanJSON struct {
	Col           int  `json:"col"`
	Width         int  `json:"width"`
	Fg            any  `json:"fg,omitempty"`
	Bg            any  `json:"bg,omitempty"`
	Bold          bool `json:"bold,omitempty"`
	Dim           bool `json:"dim,omitempty"`
	Italic        bool `json:"italic,omitempty"`
	Underline     bool `json:"underline,omitempty"`
	Reverse       bool `json:"reverse,omitempty"`
	Strikethrough bool `json:"strikethrough,omitempty"`
}

func newScreenJSON(scr *attachwire.Screen) screenJSON {
	out := screenJSON{
		Cols:   scr.Cols,
		Rows:   scr.Rows,
		Buffer: "primary",
		Cursor: cursorJSON{
			Row:     scr.CursorRow,
			Col:     scr.CursorCol,
			Visible: scr.CursorVisible,
			Shape:   cursorShapeName(scr.CursorShape),
		},
		Modes: modesJSON{
			Echo:           echoName(scr.Echo),
			BracketedPaste: scr.Modes&attachwire.ModeBracketedPaste != 0,
			AppCursorKeys:  scr.Modes&attachwire.ModeAppCursorKeys != 0,
			PendingWrap:    scr.Modes&attachwire.ModePendingWrap != 0,
			Focus:          scr.Modes&attachwire.ModeFocus != 0,
			Mouse:          "off",
		},
	}
	if scr.Active == attachwire.BufferAlternate {
		out.Buffer = "alternate"
	}
	if scr.Modes&attachwire.ModeMouse != 0 {
		out.Modes.Mouse, out.Modes.MouseEncoding = mouseNames(scr.Mouse)
	}
	cells := activeCells(scr)
	for r := 0; r < scr.Rows && (r+1)*scr.Cols <= len(cells); r++ {
		row := cells[r*scr.Cols : (r+1)*scr.Cols]
		out.Lines = append(out.Lines, lineJSON{Text: rowText(row), Spans: rowSpans(row)})
	}
	for _, l := range scr.Scrollback {
		out.Scrollback = append(out.Scrollback, rowText(l))
	}
	return out
}

// rowSpans returns the runs of cells whose style or colors are not the
// default. A wide glyph's continuation cell extends its base cell's run.
func rowSpans(row []attachwire.Cell) []spanJSON {
	var spans []spanJSON
	type key struct {
		style  attachwire.Style
		fg, bg attachwire.Color
	}
	var cur key
	for col, c := range row {
		k := key{c.Style &^ attachwire.StyleWideCont, c.Fg, c.Bg}
		if c.Style&attachwire.StyleWideCont != 0 && len(spans) > 0 && col > 0 {
			if last := &spans[len(spans)-1]; last.Col+last.Width == col {
				last.Width++
				continue
			}
		}
		if k == (key{}) {
			continue
		}
		if len(spans) > 0 && k == cur {
			if last := &spans[len(spans)-1]; last.Col+last.Width == col {
				last.Width++
				continue
			}
		}
		cur = k
		spans = append(spans, spanJSON{
			Col: col, Width: 1, Fg: colorJSON(c.Fg), Bg: colorJSON(c.Bg),
			Bold:          k.style&attachwire.StyleBold != 0,
			Dim:           k.style&attachwire.StyleDim != 0,
			Italic:        k.style&attachwire.StyleItalic != 0,
			Underline:     k.style&attachwire.StyleUnderline != 0,
			Reverse:       k.style&attachwire.StyleReverse != 0,
			Strikethrough: k.style&attachwire.StyleStrikethrough != 0,
		})
	}
	return spans
}

func colorJSON(c attachwire.Color) any {
	switch c.Kind() {
	case attachwire.ColorIndexed:
		return int(c.Index())
	case attachwire.ColorRGB:
		r, g, b := c.RGB()
		return fmt.Sprintf("#%02x%02x%02x", r, g, b)
	}
	return nil
}

func cursorShapeName(s attachwire.CursorShape) string {
	switch s {
	case attachwire.CursorBlock:
		return "block"
	case attachwire.CursorUnderline:
		return "underline"
	case attachwire.CursorBar:
		return "bar"
	}
	return "default"
}

func echoName(e attachwire.EchoMode) string {
	switch e {
	case attachwire.EchoOn:
		return "on"
	case attachwire.EchoOff:
		return "off"
	}
	return "unknown"
}

// mouseNames names a mouse mode as xterm's documentation (ctlseqs,
// "Mouse Tracking") does: tracking "normal" (?1000, reports presses and
// releases; attachwire calls it MouseX10, but xterm's X10 mode is ?9),
// "highlight" (?1001), "button" (?1002, also motion with a button down),
// "any" (?1003, all motion); encoding "x10" (the original X10 byte
// coordinates, the default), "utf8" (?1005) or "sgr" (?1006).
func mouseNames(m attachwire.MouseProto) (tracking, encoding string) {
	switch m.Tracking() {
	case attachwire.MouseX10:
		tracking = "normal"
	case attachwire.MouseHighlight:
		tracking = "highlight"
	case attachwire.MouseButton:
		tracking = "button"
	case attachwire.MouseAny:
		tracking = "any"
	default:
		tracking = "on"
	}
	switch m.Encoding() {
	case attachwire.MouseEncUTF8:
		encoding = "utf8"
	case attachwire.MouseEncSGR:
		encoding = "sgr"
	default:
		encoding = "x10"
	}
	return tracking, encoding
}

package main

import (
	"strconv"

	"github.com/ptyhost/ptyhost/attachwire"
)

// appendANSIScreen appends a repaint of scr: clear, every visible row with
// its attributes, then the cursor. It is used by exec --format ansi and
// play --screen --format ansi, and by run when it paints a snapshot.
func appendANSIScreen(dst []byte, scr *attachwire.Screen) []byte {
	return appendRepaintFallback(dst, scr)
}

// appendRepaintFallback is a minimal repaint used until attachwire's lands.
func appendRepaintFallback(dst []byte, scr *attachwire.Screen) []byte {
	if scr.Active == attachwire.BufferAlternate {
		dst = append(dst, "\x1b[?1049h"...)
	}
	dst = append(dst, "\x1b[0m\x1b[H\x1b[2J"...)
	cells := activeCells(scr)
	for r := 0; r < scr.Rows && (r+1)*scr.Cols <= len(cells); r++ {
		dst = append(dst, "\x1b["...)
		dst = strconv.AppendInt(dst, int64(r+1), 10)
		dst = append(dst, ";1H"...)
		var cur attachwire.Cell
		for _, c := range cells[r*scr.Cols : (r+1)*scr.Cols] {
			if c.Style&attachwire.StyleWideCont != 0 {
				continue
			}
			if c.Style != cur.Style || c.Fg != cur.Fg || c.Bg != cur.Bg {
				dst = appendSGR(dst, c)
				cur = c
			}
			if c.Content == "" {
				dst = append(dst, ' ')
			} else {
				dst = append(dst, c.Content...)
			}
		}
		dst = append(dst, "\x1b[0m"...)
	}
	dst = append(dst, "\x1b["...)
	dst = strconv.AppendInt(dst, int64(scr.CursorRow+1), 10)
	dst = append(dst, ';')
	dst = strconv.AppendInt(dst, int64(scr.CursorCol+1), 10)
	dst = append(dst, 'H')
	if scr.CursorVisible {
		return append(dst, "\x1b[?25h"...)
	}
	return append(dst, "\x1b[?25l"...)
}

func appendSGR(dst []byte, c attachwire.Cell) []byte {
	dst = append(dst, "\x1b[0"...)
	for _, a := range []struct {
		bit attachwire.Style
		p   string
	}{{attachwire.StyleBold, ";1"}, {attachwire.StyleDim, ";2"}, {attachwire.StyleItalic, ";3"},
		{attachwire.StyleUnderline, ";4"}, {attachwire.StyleReverse, ";7"}, {attachwire.StyleStrikethrough, ";9"}} {
		if c.Style&a.bit != 0 {
			dst = append(dst, a.p...)
		}
	}
	dst = appendSGRColor(dst, c.Fg, "38")
	dst = appendSGRColor(dst, c.Bg, "48")
	return append(dst, 'm')
}

func appendSGRColor(dst []byte, c attachwire.Color, base string) []byte {
	switch c.Kind() {
	case attachwire.ColorIndexed:
		dst = append(dst, ';')
		dst = append(dst, base...)
		dst = append(dst, ";5;"...)
		return strconv.AppendInt(dst, int64(c.Index()), 10)
	case attachwire.ColorRGB:
		r, g, b := c.RGB()
		dst = append(dst, ';')
		dst = append(dst, base...)
		dst = append(dst, ";2;"...)
		dst = strconv.AppendInt(dst, int64(r), 10)
		dst = append(dst, ';')
		dst = strconv.AppendInt(dst, int64(g), 10)
		dst = append(dst, ';')
		return strconv.AppendInt(dst, int64(b), 10)
	}
	return dst
}

// appendDriverModes re-enables the input modes the program had on, which
// a Viewer-level repaint leaves alone: the driving terminal must send
// mouse reports, focus events, bracketed pastes and application cursor
// keys the way the program expects.
func appendDriverModes(dst []byte, scr *attachwire.Screen) []byte {
	if scr.Modes&attachwire.ModeAppCursorKeys != 0 {
		dst = append(dst, "\x1b[?1h"...)
	}
	if scr.Modes&attachwire.ModeBracketedPaste != 0 {
		dst = append(dst, "\x1b[?2004h"...)
	}
	if scr.Modes&attachwire.ModeFocus != 0 {
		dst = append(dst, "\x1b[?1004h"...)
	}
	if scr.Modes&attachwire.ModeMouse != 0 {
		switch scr.Mouse.Tracking() {
		case attachwire.MouseX10:
			dst = append(dst, "\x1b[?1000h"...)
		case attachwire.MouseButton:
			dst = append(dst, "\x1b[?1002h"...)
		case attachwire.MouseAny:
			dst = append(dst, "\x1b[?1003h"...)
		}
		switch scr.Mouse.Encoding() {
		case attachwire.MouseEncUTF8:
			dst = append(dst, "\x1b[?1005h"...)
		case attachwire.MouseEncSGR:
			dst = append(dst, "\x1b[?1006h"...)
		}
	}
	return dst
}

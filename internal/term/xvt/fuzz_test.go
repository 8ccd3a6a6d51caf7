package xvt

import (
	"bytes"
	"testing"

	"github.com/charmbracelet/x/ansi"
	"github.com/charmbracelet/x/ansi/parser"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term"
)

// FuzzWrite feeds arbitrary bytes whole and split in two: both terminals
// must give the same answers and screen, the screen must be valid, and
// no parameter above 65535 may reach x/vt.
func FuzzWrite(f *testing.F) {
	for _, s := range []string{
		"hello\r\n\x1b[1;31mred\x1b[0m",
		"x\x1b[1000000000b\x1b[4294967302n\x1b[99999999n",
		"\x1b[?1049h\x1b[2;3Halt\x1b[?1049l",
		"\x1bP$qm\x1b\\\x1bP+q544e\x1b\\\x1b]11;?\a\x1b]4;1;?\x1b\\",
		"\xe4\xb8\xad\xe6\x96\x87\xc2\x9b\x1b[?2048h\x1b[c\x1b[6n",
		"\x1b[38:2::1:2:3m\x1b[;5H\x1b[1 2q\x9b5n\x1b]0;t\x07",
	} {
		f.Add([]byte(s), uint8(3))
	}
	f.Fuzz(func(t *testing.T, data []byte, at uint8) {
		if len(data) > 4096 {
			return
		}
		cut := int(at) % (len(data) + 1)
		var a, b bytes.Buffer
		ta, err := New(term.Options{Cols: 12, Rows: 4, Scrollback: 10, Answer: func(p []byte) { a.Write(p) }})
		if err != nil {
			t.Fatal(err)
		}
		defer ta.Close()
		tb, err := New(term.Options{Cols: 12, Rows: 4, Scrollback: 10, Answer: func(p []byte) { b.Write(p) }})
		if err != nil {
			t.Fatal(err)
		}
		defer tb.Close()
		ta.Write(data)
		tb.Write(data[:cut])
		tb.Write(data[cut:])
		var sa, sb attachwire.Screen
		ta.Screen(&sa)
		tb.Screen(&sb)
		if err := sa.Validate(); err != nil {
			t.Fatalf("invalid screen: %v", err)
		}
		if !bytes.Equal(a.Bytes(), b.Bytes()) {
			t.Errorf("answers differ: whole %q, split at %d %q", a.Bytes(), cut, b.Bytes())
		}
		// x/vt flushes a grapheme cluster at the end of each Write, so a
		// combining mark split from its base lands differently; compare
		// screens only for input without non-ASCII bytes.
		if bytes.IndexFunc(data, func(r rune) bool { return r >= 0x80 }) < 0 {
			if d := screenDiff(&sa, &sb); d != "" {
				t.Errorf("split at %d changes the screen: %s", cut, d)
			}
		}
		checkFiltered(t, data)
		if ta.stray.Load() != 0 {
			t.Errorf("x/vt wrote %d bytes to its pipe", ta.stray.Load())
		}
	})
}

// checkFiltered parses the filter's output with x/vt's own parser: every
// CSI it dispatches has parameters of at most 65535, and REP at most
// rows×cols.
func checkFiltered(t *testing.T, data []byte) {
	t.Helper()
	f := newFilter(12, 4)
	for p := data; len(p) > 0; {
		n, ev := f.scan(p)
		p = p[n:]
		if ev == evWide {
			f.releaseRune()
		}
	}
	ps := ansi.NewParser()
	ps.SetParamsSize(parser.MaxParamsSize)
	ps.SetHandler(ansi.Handler{HandleCsi: func(cmd ansi.Cmd, params ansi.Params) {
		for _, v := range params {
			n := v.Param(0)
			if n > maxParam || (cmd == 'b' && n > 12*4) {
				t.Errorf("CSI %q reaches x/vt with parameter %d", cmd.Final(), n)
			}
		}
	}})
	for _, b := range f.out {
		ps.Advance(b)
	}
}

package streamgen

import (
	"math/rand/v2"
	"strconv"
)

// Vocabularies for the generated text. Each entry is valid UTF-8 without
// control characters.
var (
	asciiWords = []string{
		"request", "handled", "in", "ms", "cache", "miss", "for", "key", "user",
		"session", "opened", "closed", "retrying", "connection", "to", "upstream",
		"compiled", "package", "ok", "warning:", "unused", "variable", "at",
		"line", "GET", "/api/v1/items", "200", "POST", "/login", "302", "worker",
		"started", "stopped", "queue", "depth", "bytes", "written", "flushed",
		"the", "a", "of", "with", "build", "step", "done", "test", "PASS", "FAIL",
	}
	unicodeWords = []string{
		"café", "naïve", "Grüße", "Übersicht", "日本語", "テスト", "中文字符",
		"한국어", "Ελληνικά", "русский", "→", "✓", "✗", "•", "…", "😀", "🚀",
		"👍🏽", "❤️", "👩‍💻", "🇩🇪", "e\u0301", "─────", "│", "┌─┐",
	}
	levels = []struct{ name, sgr string }{
		{"INFO ", "\x1b[32m"}, {"DEBUG", "\x1b[2;37m"}, {"WARN ", "\x1b[1;33m"},
		{"ERROR", "\x1b[1;31m"}, {"TRACE", "\x1b[38;5;244m"},
	}
)

// Mixed returns n bytes of realistic terminal output derived from seed. It
// ends on a line boundary of its own content, possibly cut inside an escape
// sequence or a UTF-8 rune at exactly n bytes: callers that need whole
// sequences should generate a little more and trim at a newline.
func Mixed(seed uint64, n int) []byte {
	g := newGen(seed, n)
	for len(g.buf) < n {
		switch k := g.r.IntN(100); {
		case k < 60:
			g.logLine()
		case k < 75:
			g.progressBar()
		case k < 85:
			g.statusRedraw()
		case k < 95:
			g.unicodeLine()
		default:
			g.longWrappedLine()
		}
	}
	return g.buf[:n]
}

// ASCII returns n bytes of plain printable ASCII text lines ending in CR LF,
// derived from seed.
func ASCII(seed uint64, n int) []byte {
	g := newGen(seed, n)
	for len(g.buf) < n {
		g.words(asciiWords, 4+g.r.IntN(14))
		g.buf = append(g.buf, "\r\n"...)
	}
	return g.buf[:n]
}

type gen struct {
	r    *rand.Rand
	buf  []byte
	line int
}

func newGen(seed uint64, n int) *gen {
	return &gen{
		r:   rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15)),
		buf: make([]byte, 0, n+512),
	}
}

func (g *gen) words(vocab []string, count int) {
	for i := 0; i < count; i++ {
		if i > 0 {
			g.buf = append(g.buf, ' ')
		}
		g.buf = append(g.buf, vocab[g.r.IntN(len(vocab))]...)
	}
}

func (g *gen) num(v int) { g.buf = strconv.AppendInt(g.buf, int64(v), 10) }

// logLine writes "12:34:56.789 LEVEL [component] message" with colors.
func (g *gen) logLine() {
	g.line++
	g.buf = append(g.buf, "\x1b[90m"...)
	t := g.line * 37
	g.pad2(t / 3600000 % 24)
	g.buf = append(g.buf, ':')
	g.pad2(t / 60000 % 60)
	g.buf = append(g.buf, ':')
	g.pad2(t / 1000 % 60)
	g.buf = append(g.buf, "\x1b[0m "...)
	lv := levels[g.r.IntN(len(levels))]
	g.buf = append(g.buf, lv.sgr...)
	g.buf = append(g.buf, lv.name...)
	g.buf = append(g.buf, "\x1b[0m "...)
	if g.r.IntN(4) == 0 {
		// A truecolor component tag, as modern loggers print.
		g.buf = append(g.buf, "\x1b[38;2;"...)
		g.num(g.r.IntN(256))
		g.buf = append(g.buf, ';')
		g.num(g.r.IntN(256))
		g.buf = append(g.buf, ';')
		g.num(g.r.IntN(256))
		g.buf = append(g.buf, "m[worker-"...)
		g.num(g.r.IntN(16))
		g.buf = append(g.buf, "]\x1b[39m "...)
	}
	g.words(asciiWords, 3+g.r.IntN(12))
	if g.r.IntN(5) == 0 {
		g.buf = append(g.buf, " \x1b[1mtook\x1b[22m \x1b[4m"...)
		g.num(g.r.IntN(5000))
		g.buf = append(g.buf, "ms\x1b[24m"...)
	}
	g.buf = append(g.buf, "\r\n"...)
}

func (g *gen) pad2(v int) {
	g.buf = append(g.buf, byte('0'+v/10), byte('0'+v%10))
}

// progressBar redraws one line several times with CR and EL, then ends it.
func (g *gen) progressBar() {
	steps := 3 + g.r.IntN(8)
	width := 20 + g.r.IntN(40)
	for s := 1; s <= steps; s++ {
		done := width * s / steps
		g.buf = append(g.buf, "\r\x1b[K\x1b[36m["...)
		for i := 0; i < width; i++ {
			if i < done {
				g.buf = append(g.buf, '#')
			} else {
				g.buf = append(g.buf, ' ')
			}
		}
		g.buf = append(g.buf, "]\x1b[0m "...)
		g.num(100 * s / steps)
		g.buf = append(g.buf, '%')
	}
	g.buf = append(g.buf, "\r\n"...)
}

// statusRedraw saves the cursor, paints a status line at a fixed position
// with reverse video, and restores the cursor, as top-like tools do.
func (g *gen) statusRedraw() {
	g.buf = append(g.buf, "\x1b7\x1b["...)
	g.num(1 + g.r.IntN(5))
	g.buf = append(g.buf, ";1H\x1b[7m load "...)
	g.num(g.r.IntN(100))
	g.buf = append(g.buf, '.')
	g.num(g.r.IntN(100))
	g.buf = append(g.buf, " tasks "...)
	g.num(g.r.IntN(500))
	g.buf = append(g.buf, " \x1b[27m\x1b[K\x1b[48;5;"...)
	g.num(16 + g.r.IntN(216))
	g.buf = append(g.buf, "m  \x1b[49m\x1b8"...)
}

// unicodeLine writes text mixing scripts, wide glyphs and emoji sequences.
func (g *gen) unicodeLine() {
	g.buf = append(g.buf, "\x1b[35m• \x1b[0m"...)
	for i, n := 0, 3+g.r.IntN(8); i < n; i++ {
		if i > 0 {
			g.buf = append(g.buf, ' ')
		}
		if g.r.IntN(2) == 0 {
			g.buf = append(g.buf, unicodeWords[g.r.IntN(len(unicodeWords))]...)
		} else {
			g.buf = append(g.buf, asciiWords[g.r.IntN(len(asciiWords))]...)
		}
	}
	g.buf = append(g.buf, "\r\n"...)
}

// longWrappedLine writes a line longer than a typical terminal is wide, so
// it soft-wraps.
func (g *gen) longWrappedLine() {
	g.words(asciiWords, 30+g.r.IntN(30))
	g.buf = append(g.buf, "\r\n"...)
}

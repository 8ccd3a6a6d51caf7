package termtest_test

import (
	"strings"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/term"
	"github.com/ptyhost/ptyhost/internal/term/termtest"
)

// countTerm puts in its cursor column either the bytes it was fed (a
// backend that ignores splits) or the number of Write calls (one that
// does not), and answers every 'q' byte.
type countTerm struct {
	opts   term.Options
	n      int
	splits bool
}

func (c *countTerm) Write(p []byte) {
	if c.splits {
		c.n++
	} else {
		c.n += len(p)
	}
	for _, b := range p {
		if b == 'q' && c.opts.Answer != nil {
			c.opts.Answer([]byte("!"))
		}
	}
}
func (c *countTerm) Resize(cols, rows, _, _ int) {}
func (c *countTerm) Size() (int, int)            { return c.opts.Cols, c.opts.Rows }
func (c *countTerm) Screen(dst *attachwire.Screen) {
	*dst = attachwire.Screen{Cols: c.opts.Cols, Rows: c.opts.Rows, CursorCol: c.n}
}
func (c *countTerm) Close() error { return nil }

func TestSplitDiff(t *testing.T) {
	for _, tt := range []struct {
		name   string
		splits bool
		data   string
		want   string
	}{
		{"split-independent", false, "abcq", ""},
		{"split-dependent", true, "abcq", "byte by byte: screen differs"},
		{"one byte", true, "q", ""},
	} {
		t.Run(tt.name, func(t *testing.T) {
			ctor := func(o term.Options) (term.Terminal, error) { return &countTerm{opts: o, splits: tt.splits}, nil }
			d, err := termtest.SplitDiff(ctor, term.Options{Cols: 4, Rows: 2}, []byte(tt.data))
			if err != nil {
				t.Fatal(err)
			}
			if tt.want == "" && d != "" || !strings.HasPrefix(d, tt.want) {
				t.Errorf("SplitDiff = %q, want prefix %q", d, tt.want)
			}
		})
	}
}

// TestSplitCasesNamed: every case has a distinct name, for divergence
// tables keyed by it.
func TestSplitCasesNamed(t *testing.T) {
	seen := map[string]bool{}
	for _, c := range termtest.SplitCases() {
		if c.Name == "" || seen[c.Name] || len(c.Data) == 0 {
			t.Errorf("case %q: empty or duplicate", c.Name)
		}
		seen[c.Name] = true
	}
}

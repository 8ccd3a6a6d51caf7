package engine

import (
	"strings"
	"testing"
)

// TestWorkBound feeds inputs built to be expensive (huge counts, whole-
// screen operations, cluster floods, long strings) and checks the steps
// each byte costs against the budget the fuzz target enforces. It also
// reports the worst ratio to the width.
func TestWorkBound(t *testing.T) {
	const cols, rows = 120, 40
	inputs := map[string]string{
		"rep":          "x" + strings.Repeat("\x1b[2000000000b", 200),
		"ech":          strings.Repeat("\x1b[2000000000X", 200),
		"ich dch":      strings.Repeat("\x1b[99999@\x1b[99999P", 200),
		"cht cbt":      strings.Repeat("\x1b[2000000000I\x1b[2000000000Z", 200),
		"su sd":        strings.Repeat("\x1b[9999S\x1b[9999T", 200),
		"su sd bg":     "\x1b[41m" + strings.Repeat("\x1b[9999S\x1b[9999T", 200),
		"il dl bg":     "\x1b[41m" + strings.Repeat("\x1b[9999L\x1b[9999M", 200),
		"ed bg":        "\x1b[41m" + strings.Repeat("\x1b[2J", 200),
		"decaln":       strings.Repeat("\x1b#8", 200),
		"lf flood":     strings.Repeat("\n", 20000),
		"alt toggle":   "\x1b[41m" + strings.Repeat("\x1b[?1049h\x1b[?1049l", 200),
		"combining":    "e" + strings.Repeat("\u0301", 5000),
		"clusters":     strings.Repeat("a\u0301b\u0302c\u0303d\u0304e\u0305f\u0306", 2000),
		"long osc":     "\x1b]0;" + strings.Repeat("t", 100000) + "\x07",
		"long csi":     "\x1b[" + strings.Repeat("1;", 100000) + "m",
		"irm wide":     "\x1b[4h" + strings.Repeat("世", 5000),
		"region index": "\x1b[5;30r\x1b[30;1H" + strings.Repeat("\x1bD\x1bM", 5000),
	}
	worst, worstName := 0.0, ""
	for name, in := range inputs {
		e, _ := newTest(t, cols, rows, 200)
		before := e.steps()
		e.Write([]byte(in))
		steps := e.steps() - before
		if limit := workBudget(len(in), cols, rows); steps > limit {
			t.Errorf("%s: %d steps for %d bytes, budget %d", name, steps, len(in), limit)
		}
		if r := float64(steps) / float64(len(in)) / cols; r > worst {
			worst, worstName = r, name
		}
		checkInvariants(t, screenOf(e))
	}
	t.Logf("worst case: %.2f·cols steps a byte (%s) at %dx%d", worst, worstName, cols, rows)
}

package xvt

import (
	"testing"

	"github.com/ptyhost/ptyhost/internal/term"
	"github.com/ptyhost/ptyhost/internal/term/termtest"
)

// splitDivergences lists termtest's split cases whose screen depends on how
// the input is split, with the reason. It is why the library does not ship
// this backend (package xvtgate): the host's reads split the output
// wherever they fall. Every other case must pass, and every case listed
// must still fail (a fixed x/vt asks for its line to go).
var splitDivergences = map[string]string{
	"combining":          "x/vt ends a grapheme cluster at each Write: a combining mark written apart from its base gets a cell of its own",
	"variation-selector": "x/vt ends a grapheme cluster at each Write: VS16 written apart from its base gets a cell of its own",
	"zwj":                "x/vt ends a grapheme cluster at each Write: a ZWJ sequence cut between writes becomes separate glyphs",
	"regional":           "x/vt ends a grapheme cluster at each Write: a flag's two regional indicators cut between writes become two glyphs",
}

// TestSplitCases runs termtest's split check on this backend.
func TestSplitCases(t *testing.T) {
	ctor := func(o term.Options) (term.Terminal, error) { return New(o) }
	seen := map[string]bool{}
	for _, c := range termtest.SplitCases() {
		seen[c.Name] = true
		t.Run(c.Name, func(t *testing.T) {
			d, err := termtest.SplitDiff(ctor, term.Options{Cols: 10, Rows: 4, Scrollback: 20, Version: "1.2.3"}, c.Data)
			if err != nil {
				t.Fatal(err)
			}
			why, listed := splitDivergences[c.Name]
			switch {
			case listed && d == "":
				t.Errorf("listed as split-dependent (%s) but passes: remove it from the table", why)
			case !listed && d != "":
				t.Errorf("%q: %s", c.Data, d)
			case listed:
				t.Logf("expected: %s (%s)", d, why)
			}
		})
	}
	termtest.CheckTableNames(t, splitDivergences, seen)
}

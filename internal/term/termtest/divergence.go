package termtest

import (
	"strings"
	"testing"
)

// CheckDivergence holds a backend's differences d from tmux on one case to
// the backend's divergence table, whose entry for the case is why (listed
// reports whether there is one). A case that differs must be listed with
// its reason, and a listed case must still differ, so the table cannot go
// stale; listed differences are logged. detail, if any, follows the
// differences in a failure (the backend's text, the input).
func CheckDivergence(tb testing.TB, d []string, why string, listed bool, detail string) {
	tb.Helper()
	switch {
	case listed && len(d) == 0:
		tb.Errorf("listed as divergent (%s) but matches tmux: remove it from the table", why)
	case !listed && len(d) > 0:
		tb.Errorf("differs from tmux:\n%s\n%s", strings.Join(d, "\n"), detail)
	case listed:
		tb.Logf("expected divergence (%s): %d differences", why, len(d))
	}
}

// CheckTableNames reports the entries of a divergence table that name no
// case: seen holds the names of the cases that ran.
func CheckTableNames[V any](tb testing.TB, table map[string]V, seen map[string]bool) {
	tb.Helper()
	for name := range table {
		if !seen[name] {
			tb.Errorf("divergence listed for %s, which is not a case", name)
		}
	}
}

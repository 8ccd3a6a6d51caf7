package termtest

import (
	"strings"
	"testing"
)

// recorder is a testing.TB that keeps what was reported.
type recorder struct {
	testing.TB
	errs, logs []string
}

func (r *recorder) Helper()                        {}
func (r *recorder) Errorf(format string, a ...any) { r.errs = append(r.errs, format) }
func (r *recorder) Logf(format string, a ...any)   { r.logs = append(r.logs, format) }

// TestCheckDivergence: an unlisted difference and a stale entry fail, a
// listed difference is logged, a clean match passes silently.
func TestCheckDivergence(t *testing.T) {
	diff := []string{"row 0: x"}
	for _, tc := range []struct {
		name          string
		d             []string
		listed        bool
		errs, logs    int
		errSubstrings string
	}{
		{"unlisted difference", diff, false, 1, 0, "differs"},
		{"stale entry", nil, true, 1, 0, "remove it"},
		{"listed difference", diff, true, 0, 1, ""},
		{"match", nil, false, 0, 0, ""},
	} {
		r := &recorder{TB: t}
		CheckDivergence(r, tc.d, "why", tc.listed, "")
		if len(r.errs) != tc.errs || len(r.logs) != tc.logs || tc.errs > 0 && !strings.Contains(r.errs[0], tc.errSubstrings) {
			t.Errorf("%s: errors %q, logs %q", tc.name, r.errs, r.logs)
		}
	}
	r := &recorder{TB: t}
	CheckTableNames(r, map[string]string{"a": "", "gone": ""}, map[string]bool{"a": true})
	if len(r.errs) != 1 {
		t.Errorf("CheckTableNames: errors %q, want one for the entry naming no case", r.errs)
	}
}

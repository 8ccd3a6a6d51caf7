package relay

import (
	"strings"
	"testing"
	"time"
)

func TestRecordFileName(t *testing.T) {
	start := time.Date(2026, 1, 2, 3, 4, 5, 6000, time.UTC)
	got := recordFileName(roomKey{org: "acme", session: "a/b_c ../x"}, 7, start)
	if want := "acme_a%2Fb%5Fc%20%2E%2E%2Fx_e7_20260102T030405.000006000Z.cast"; got != want {
		t.Errorf("got %q, want %q", got, want)
	}
	if got := fileSafe(""); got != "-" {
		t.Errorf("empty: %q", got)
	}
	long1, long2 := fileSafe(strings.Repeat("x", 200)+"1"), fileSafe(strings.Repeat("x", 200)+"2")
	if len(long1) > 96 || long1 == long2 {
		t.Errorf("long ids: %q %q", long1, long2)
	}
}

func TestLabelID(t *testing.T) {
	for in, want := range map[string]string{"alice": "alice", "a b": `"a b"`, "": `""`, "x\ny": `"x\ny"`} {
		if got := labelID(in); got != want {
			t.Errorf("labelID(%q) = %q, want %q", in, got, want)
		}
	}
}

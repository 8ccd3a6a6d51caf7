package web_test

import (
	"encoding/json"
	"os"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/testkit"
)

// TestBrowserRetryAfterTable: the page reads Retry-After with the Go
// peers' parser (the engine's ptyhostRetryAfter): the table attachwire's
// own test pins gives the same waits in the browser, against its clock.
func TestBrowserRetryAfterTable(t *testing.T) {
	bctx := startBrowser(t)
	b, err := os.ReadFile("../attachwire/testdata/retry_after.json")
	if err != nil {
		t.Fatal(err)
	}
	var rows []struct {
		In string `json:"in"`
		MS int64  `json:"ms"`
	}
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatal(err)
	}
	r := startRelay(t)
	ctx := page(t, bctx, r.pageURL("retry", r.token(attachwire.RoleViewer, "retry", "rita")))
	testkit.EventuallyDescribe(t, "the engine to load", func() bool {
		return eval[bool](t, ctx, `typeof ptyhostRetryAfter === 'function'`)
	}, func() string { return "no ptyhostRetryAfter" })
	got := eval[[]int64](t, ctx, `(`+string(b)+`).map((r) => ptyhostRetryAfter(r.in))`)
	if len(got) != len(rows) {
		t.Fatalf("%d answers for %d rows", len(got), len(rows))
	}
	for i, row := range rows {
		if got[i] != row.MS {
			t.Errorf("ptyhostRetryAfter(%q) = %d ms, want %d", row.In, got[i], row.MS)
		}
	}
}

package attachwire

import (
	"encoding/json"
	"os"
	"strings"
	"testing"
	"time"
)

func TestRetryAfterTable(t *testing.T) {
	now := time.Date(2015, 10, 21, 7, 28, 0, 0, time.UTC)
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"5", 5 * time.Second, true},
		{" 12 ", 12 * time.Second, true},
		{"0", 0, true}, // redial at once
		{"007", 7 * time.Second, true},
		{"Wed, 21 Oct 2015 07:28:09 GMT", 9 * time.Second, true},
		{"Wed, 21 Oct 2015 07:27:00 GMT", 0, true}, // past: at once
		{"Wednesday, 21-Oct-15 07:28:30 GMT", 30 * time.Second, true},
		{"Wed Oct 21 07:29:00 2015", time.Minute, true},
		{"Thu, 22 Oct 2015 07:28:00 GMT", MaxRetryAfter, true},
		{"Wed, 21 Oct 2015 07:28:09 UTC", 0, false},
		{"", 0, false},
		{"-3", 0, false},
		{"+3", 0, false},
		{"1.5", 0, false},
		{"5s", 0, false},
		{"1e3", 0, false},
		{"0x10", 0, false},
		{"99999999999999999999999", MaxRetryAfter, true},
		{"100000", MaxRetryAfter, true},
		{"86400", MaxRetryAfter, true},
		{strings.Repeat("9", 5000), MaxRetryAfter, true},
	} {
		got, ok := ParseRetryAfter(tc.in, now)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
}

func TestRedialAfterTable(t *testing.T) {
	for _, tc := range []struct {
		in   string
		want time.Duration
		ok   bool
	}{
		{"redial after 5s", 5 * time.Second, true},
		{"  redial after 30s ", 30 * time.Second, true},
		{"redial after 0s", 0, true},
		{"redial after 5000ms", 0, false},
		{"redial after 5", 0, false},
		{"redial after s", 0, false},
		{"please redial after 5s", 0, false},
		{"Redial after 5s", 0, false},
		{"redial after -1s", 0, false},
		{"redial after 1.5s", 0, false},
		{"redial after 99999999999999999999s", MaxRetryAfter, true},
	} {
		got, ok := ParseRedialAfter(tc.in)
		if got != tc.want || ok != tc.ok {
			t.Errorf("ParseRedialAfter(%q) = %v, %v; want %v, %v", tc.in, got, ok, tc.want, tc.ok)
		}
	}
	for _, tc := range []struct {
		in        string
		want      time.Duration
		announced bool
	}{
		{"relay-restarting: redial after 4s", 4 * time.Second, true},
		{"relay-restarting:redial after 4s", 4 * time.Second, true},
		{"relay-restarting: soon", 0, true},
		{"relay-restarting:", 0, true},
		{"going away: redial after 4s", 0, false},
		{"", 0, false},
	} {
		got, announced := ParseRestartReason(tc.in)
		if got != tc.want || announced != tc.announced {
			t.Errorf("ParseRestartReason(%q) = %v, %v; want %v, %v", tc.in, got, announced, tc.want, tc.announced)
		}
	}
}

// What the relay writes is what its peers read back, rounded up to whole
// seconds.
func TestRestartFormatsGolden(t *testing.T) {
	for _, tc := range []struct {
		d                    time.Duration
		retryAfter, msg, why string
	}{
		{5 * time.Second, "5", "redial after 5s", "relay-restarting: redial after 5s"},
		{1500 * time.Millisecond, "2", "redial after 2s", "relay-restarting: redial after 2s"},
		{0, "0", "redial after 0s", "relay-restarting: redial after 0s"},
		{-time.Second, "0", "redial after 0s", "relay-restarting: redial after 0s"},
	} {
		if got := FormatRetryAfter(tc.d); got != tc.retryAfter {
			t.Errorf("FormatRetryAfter(%v) = %q, want %q", tc.d, got, tc.retryAfter)
		}
		if got := FormatRedialAfter(tc.d); got != tc.msg {
			t.Errorf("FormatRedialAfter(%v) = %q, want %q", tc.d, got, tc.msg)
		}
		if got := RestartCloseReason(tc.d); got != tc.why {
			t.Errorf("RestartCloseReason(%v) = %q, want %q", tc.d, got, tc.why)
		}
		want := (max(tc.d, 0) + time.Second - 1).Truncate(time.Second)
		if got, ok := ParseRedialAfter(tc.msg); !ok || got != want {
			t.Errorf("ParseRedialAfter(%q) = %v, %v; want %v", tc.msg, got, ok, want)
		}
		if got, ok := ParseRetryAfter(tc.retryAfter, time.Time{}); !ok || got != want {
			t.Errorf("ParseRetryAfter(%q) = %v, %v; want %v", tc.retryAfter, got, ok, want)
		}
	}
}

func TestBackoffEqualJitterDoublesToMax(t *testing.T) {
	for _, tc := range []struct {
		name   string
		jitter func(n int64) int64
		hint   time.Duration
		want   []time.Duration
	}{
		// Lowest draw: half of each ceiling 100, 200, 400, 800, 1000, 1000.
		{"low", func(int64) int64 { return 0 }, 0, []time.Duration{50, 100, 200, 400, 500, 500}},
		// Highest draw: the ceiling itself.
		{"high", func(n int64) int64 { return n }, 0, []time.Duration{100, 200, 400, 800, 1000, 1000}},
		// A hint longer than the draw wins, never past Max.
		{"hint", func(int64) int64 { return 0 }, 300, []time.Duration{300, 300, 300, 400, 500, 500}},
		{"long hint", func(int64) int64 { return 0 }, 5000, []time.Duration{1000, 1000}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			b := Backoff{Min: 100, Max: 1000, Jitter: tc.jitter}
			for n, want := range tc.want {
				if got := b.Wait(n, tc.hint); got != want {
					t.Fatalf("wait %d = %v, want %v", n, got, want)
				}
			}
		})
	}
	huge := Backoff{Min: time.Second, Max: 1<<63 - 1, Jitter: func(n int64) int64 { return n }}
	if got := huge.Wait(200, 0); got != huge.Max {
		t.Fatalf("after 200 doublings: %v, want Max", got)
	}
	if got := (Backoff{Max: time.Second}).Wait(10, 0); got != 0 {
		t.Fatalf("Min 0: %v, want 0", got)
	}
}

func TestBackoffRandomStaysInTheUpperHalf(t *testing.T) {
	b := Backoff{Min: 10 * time.Millisecond, Max: 80 * time.Millisecond}
	ceil := 10 * time.Millisecond
	for n := range 200 {
		d := b.Wait(n, 0)
		if d < ceil/2 || d > ceil {
			t.Fatalf("wait %d = %v outside [%v, %v]", n, d, ceil/2, ceil)
		}
		ceil = min(2*ceil, 80*time.Millisecond)
	}
}

func TestCapMessage(t *testing.T) {
	s := strings.Repeat("é", 150) // 300 bytes, two per rune
	got := CapMessage(s)
	if len(got) != MaxMessageBytes || !strings.HasPrefix(s, got) {
		t.Fatalf("cut to %d bytes", len(got))
	}
	odd := "x" + s
	if got := CapMessage(odd); len(got) != MaxMessageBytes-1 || !strings.HasPrefix(odd, got) {
		t.Fatalf("cut mid-rune: %d bytes", len(got))
	}
	if CapMessage("short") != "short" {
		t.Fatal("a short message changed")
	}
}

// retryAfterCase is a row of testdata/retry_after.json, the table the
// page's reading of Retry-After is checked against too (web's
// TestBrowserRetryAfterTable): the wait in milliseconds, -1 for no hint.
// Its dates are far enough from any test run's clock to read the same.
type retryAfterCase struct {
	In string `json:"in"`
	MS int64  `json:"ms"`
}

const retryAfterTable = "testdata/retry_after.json"

func TestRetryAfterSharedTable(t *testing.T) {
	b, err := os.ReadFile(retryAfterTable)
	if err != nil {
		t.Fatal(err)
	}
	var rows []retryAfterCase
	if err := json.Unmarshal(b, &rows); err != nil {
		t.Fatal(err)
	}
	for _, row := range rows {
		got := int64(-1)
		if d, ok := ParseRetryAfter(row.In, time.Now()); ok {
			got = d.Milliseconds()
		}
		if got != row.MS {
			t.Errorf("ParseRetryAfter(%q) = %d ms, want %d", row.In, got, row.MS)
		}
	}
}

package autotls

import (
	"slices"
	"strings"
	"testing"
)

func TestParseDomains(t *testing.T) {
	got, err := ParseDomains([]string{"Relay.Example.com", " a.example.com , relay.example.com.", "b.example.org"})
	if err != nil {
		t.Fatal(err)
	}
	want := []string{"relay.example.com", "a.example.com", "b.example.org"}
	if !slices.Equal(got, want) {
		t.Fatalf("got %q, want %q", got, want)
	}
}

func TestParseDomainsRefuses(t *testing.T) {
	long := strings.Repeat("a", 64) + ".example.com"
	huge := strings.Repeat("abcdefghi.", 26) + "com"
	for _, tc := range []struct {
		in   []string
		want string
	}{
		{nil, "no domain name"},
		{[]string{""}, "empty domain name"},
		{[]string{"a.example.com,"}, "empty domain name"},
		{[]string{"."}, "empty domain name"},
		{[]string{"*.example.com"}, "wildcards"},
		{[]string{"192.0.2.1"}, "IP address"},
		{[]string{"[2001:db8::1]"}, "IP address"},
		{[]string{"::1"}, "IP address"},
		{[]string{"relay.example.com:443"}, "has a port"},
		{[]string{"localhost"}, "single label"},
		{[]string{"relay..example.com"}, "1 to 63"},
		{[]string{long}, "1 to 63"},
		{[]string{huge}, "longer than 253"},
		{[]string{"relay_1.example.com"}, `'_'`},
		{[]string{"réseau.example.com"}, "xn--"},
		{[]string{"relay example.com"}, `' '`},
		{[]string{"-relay.example.com"}, "hyphen"},
		{[]string{"relay-.example.com"}, "hyphen"},
	} {
		_, err := ParseDomains(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("ParseDomains(%q) = %v, want an error with %q", tc.in, err, tc.want)
		}
	}
}

// FuzzParseDomains: whatever is typed, the names returned are lower-case
// host names of two labels or more that parse again to themselves.
func FuzzParseDomains(f *testing.F) {
	for _, s := range []string{"relay.example.com", "a.example.com,b.example.org", "*.x.y", "1.2.3.4", "x..y", "xn--rsau-bpa.example.com."} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		got, err := ParseDomains([]string{s})
		if err != nil {
			return
		}
		for _, d := range got {
			if d != strings.ToLower(d) || len(d) > maxDomainLen || strings.Count(d, ".") < 1 || strings.ContainsAny(d, "*:[] ,") {
				t.Fatalf("ParseDomains(%q) gave %q", s, d)
			}
		}
		again, err := ParseDomains(got)
		if err != nil || !slices.Equal(again, got) {
			t.Fatalf("ParseDomains(%q) = %q, which parses to %q, %v", s, got, again, err)
		}
	})
}

package autotls

import (
	"fmt"
	"net/netip"
	"strings"
)

// maxDomainLen is DNS's bound on a name in text form (RFC 1035's 255
// octets on the wire, less the length octets).
const maxDomainLen = 253

// ParseDomains turns the values of a repeatable, comma-separated option
// into the names a certificate is asked for: lower-cased, duplicates
// dropped, in order. It refuses what a CA would refuse anyway, with the
// reason, before a single request is made: no name at all, an empty
// element, an IP address, a port, a wildcard (ACME gives those only
// through DNS-01), a name with one label, or characters a host name
// cannot have (internationalised names are given in their xn-- form).
func ParseDomains(values []string) ([]string, error) {
	var out []string
	seen := make(map[string]bool)
	for _, v := range values {
		for _, d := range strings.Split(v, ",") {
			// A fully qualified name's final dot is no part of a
			// certificate's name.
			d = strings.TrimSuffix(strings.ToLower(strings.TrimSpace(d)), ".")
			if err := checkDomain(d); err != nil {
				return nil, err
			}
			if !seen[d] {
				seen[d] = true
				out = append(out, d)
			}
		}
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no domain name given")
	}
	return out, nil
}

// checkDomain says what is wrong with d as the name of a certificate.
func checkDomain(d string) error {
	switch {
	case d == "":
		return fmt.Errorf("an empty domain name (a stray comma?)")
	case len(d) > maxDomainLen:
		return fmt.Errorf("domain name %.20q... is longer than %d characters", d, maxDomainLen)
	case strings.Contains(d, "*"):
		return fmt.Errorf("domain name %q: wildcards need the DNS-01 challenge, which the relay does not answer", d)
	}
	if _, err := netip.ParseAddr(strings.Trim(d, "[]")); err == nil {
		return fmt.Errorf("%q is an IP address: a certificate by ACME is for a domain name", d)
	}
	if strings.Contains(d, ":") {
		return fmt.Errorf("domain name %q has a port: give the name alone (the port is --listen's)", d)
	}
	labels := strings.Split(d, ".")
	if len(labels) < 2 {
		return fmt.Errorf("domain name %q has a single label: a public CA issues only for names like relay.example.com", d)
	}
	for _, l := range labels {
		if err := checkLabel(d, l); err != nil {
			return err
		}
	}
	return nil
}

// checkLabel checks one label of the name d: 1 to 63 letters, digits and
// inner hyphens.
func checkLabel(d, l string) error {
	if l == "" || len(l) > 63 {
		return fmt.Errorf("domain name %q: each dot-separated part must be 1 to 63 characters", d)
	}
	for i := 0; i < len(l); i++ {
		c := l[i]
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return fmt.Errorf("domain name %q has %q: a host name has letters, digits, hyphens and dots (internationalised names in their xn-- form)", d, c)
		}
	}
	if l[0] == '-' || l[len(l)-1] == '-' {
		return fmt.Errorf("domain name %q: a part cannot begin or end with a hyphen", d)
	}
	return nil
}

// Package autotls gets and renews a public relay's TLS certificate by ACME
// (RFC 8555), from Let's Encrypt by default, so that an operator names the
// relay's domain and nothing else.
//
// A Manager answers the CA's challenges itself: TLS-ALPN-01 on the relay's
// own TLS listener (through TLSConfig's GetCertificate, so a relay on :443
// needs no other port), and HTTP-01 on an optional plain-HTTP listener
// (ServeHTTP), which redirects every other request to https. Certificates,
// their keys and the ACME account key are kept in a cache directory, so a
// restarted relay reuses its certificate instead of ordering another; they
// are renewed in the background before they expire.
package autotls

// Package relaytest runs a reference relay on a loopback port for tests and
// speaks to it as a host, driver or viewer would, the way net/http/httptest
// serves a handler.
//
// NewServer starts a relay.Relay with a fresh Ed25519 key and mints tokens
// for it (Server.HostToken, DriverToken, ViewerToken, Token for any claim
// set). Dial opens a leg with a token; a Conn sends and receives frames and
// controls, only through attachwire's codecs, with helpers that fail the
// test on a deadline instead of hanging: NextFrame, ExpectControl,
// ExpectClose.
//
// Concurrency: a Server is safe for concurrent use. A Conn may send from
// one goroutine while another receives; two receivers or two senders must
// not run at once.
//
// The packages that plug into the relay (the host carrier, the viewers)
// use it for their end-to-end tests.
package relaytest

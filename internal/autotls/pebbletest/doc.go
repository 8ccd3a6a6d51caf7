// Package pebbletest runs a real ACME CA on loopback for tests: Let's
// Encrypt's Pebble (its web front end, CA and validation authority, in
// this process), with a DNS server that says every name is 127.0.0.1, so
// that the CA's challenges reach a relay listening on loopback.
//
// Only tests import it: a ptyhost binary links none of Pebble.
package pebbletest

// Package agent is the contract between a session host and a carrier: the
// few methods something like attachclient needs to carry one terminal
// session to a relay (subscribe to its frames, send input, resize, take
// snapshots, emit markers, stop it, learn how it ended).
//
// (*ptyhost.Session).Agent returns a session as an InteractiveSession (its
// own Subscribe returns the concrete *ptyhost.Subscription); the assertion
// lives in package ptyhost, which imports this package, so that a carrier
// can depend on agent alone and be tested against a fake host. ErrRingMiss is the very
// value of attachwire.ErrRingMiss, so errors.Is works with either.
package agent

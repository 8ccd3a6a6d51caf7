// Package term defines the headless terminal the session host feeds and
// the answers it gives to the child's terminal queries.
//
// A Terminal is the single authority on the screen of a session. The host
// feeds it every byte read from the PTY master, under the session lock, and
// extracts an attachwire.Screen from it for snapshots. Queries the child
// sends (DA1, CPR, OSC 11 ?, ...) are answered through Options.Answer,
// never under a lock the answer could wait on: the callback must not block.
//
// Backends live in sub-packages; the answer encoders in this package are
// shared so that every backend says the same thing, down to the version in
// XTVERSION (package internal/version, what `ptyhost version` prints).
// The library ships one backend, engine; xvt (charmbracelet/x/vt) is linked
// only with the ptyhost_xvt build tag (package xvtgate), because its
// screen depends on how its input is split into writes, and stays as a
// second opinion for the fidelity tests and a peer for the benchmarks.
// termtest.CheckSplits is the check every backend is held to: the same
// screen and answers whole, byte by byte, halved at every offset and in
// seeded random chunks.
package term

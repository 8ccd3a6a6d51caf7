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
// shared so that every backend says the same thing.
package term

// Package testkit holds the helpers the module's own tests share: waiting
// for a condition with a watchdog instead of sleeping a guessed time, and
// reading an attachwire.Screen as plain text. It is internal: peers of a
// relay outside this module use relaytest, and a network that misbehaves
// on cue is faultproxy's.
//
// # Waiting
//
// Eventually and EventuallyDescribe poll a condition until it holds and
// fail the test after Deadline, a bound generous enough for a loaded
// two-core machine running the race detector: a test that passes never
// waits for it, so its size costs nothing but the time a real failure
// takes to report. The poll interval starts at a millisecond and backs
// off to 20 ms, so a condition that holds at once costs no sleep and an
// expensive one (a browser round trip) is not run in a hot loop.
//
// # Screens
//
// Row, Lines, Text and History render cells as the text a user reads:
// each row's cell contents joined, trailing blanks trimmed. Cells are
// not copied and nothing is retained.
//
// # Concurrency
//
// The functions keep no state; a condition given to Eventually runs on
// the calling goroutine and must do its own locking.
package testkit

// Package inputcut holds the one rule by which the viewers (package viewer
// and the browser page's engine) cut typed or pasted input into Input
// frames of bounded size.
//
// Frames of one paste may reach the session apart in time: over the
// degraded lane each POST waits for the last one's answer, and a client
// that waits for acks before queueing more (viewer.Client.InputWait) waits
// between them. A program that reads an escape sequence with a timeout (a
// lone ESC is the Escape key after, say, 50 ms) would take one cut in two
// for a key press and text: the end of a bracketed paste ("\x1b[201~")
// then never ends the paste. So a cut is never put inside a short escape
// sequence near the end of a chunk, nor inside a UTF-8 sequence.
//
// Cut is a pure function of its arguments, safe for concurrent use.
package inputcut

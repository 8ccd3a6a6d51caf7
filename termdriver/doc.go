// Package termdriver drives interactive programs the way an agent needs
// to: start a program under a PTY, read its screen as text, type text and
// named keys, wait for a prompt, for quiet or for the exit, resize, stop.
// It is the library behind `ptyhost mcp`, for agent runners that embed it
// without the Model Context Protocol.
//
// # Model
//
// A [Driver] holds any number of sessions, each a [ptyhost.Session]
// named by a short ID. A [Screen] is rendered from the host's own
// terminal emulator ([ptyhost.Session.Snapshot]), so it is exactly what a
// viewer attaching at the same seq sees, with the seq it reflects. Screens
// are cheap to compare: a session remembers the last screens it returned,
// and [ScreenOptions.Since] reports only the rows changed since one of
// them, so a caller that pays for every line it reads is not sent an
// unchanged screen twice.
//
// [Session.Type] encodes keys as xterm does ([ParseKey] reads their
// names), honouring the program's cursor-key mode (DECCKM) as the screen
// reports it. [Session.Wait] follows the session's frames through a
// [ptyhost.Subscription] and checks the screen as output arrives; a
// timeout is a result, not an error.
//
// Each session also keeps an output log ([Session.Output]): what the
// program printed, as plain text, well past what the screen and its
// scrollback show. The log must not miss output, so it reads through a
// held subscription ([ptyhost.Session.SubscribeHeld]): while it lags, the
// program waits, at most [LogHoldTimeout] in one stall.
//
// # Concurrency
//
// A Driver and its Sessions are safe for concurrent use. Input from
// concurrent Type calls is written one call after the other, never
// interleaved. A Type whose program does not read its input returns
// [ErrInputPending] when its context ends; the input is still delivered,
// in order, when the program reads, or dropped when it stops.
//
// # Limits
//
// A Driver holds at most [Options.MaxSessions] sessions; exited ones
// count until [Driver.Stop] removes them. A session's log keeps between
// [Options.LogBytes] and twice that of text. Each session runs one
// goroutine for its log beside ptyhost's own, and a Type whose program
// does not read keeps one more until the program reads or stops. It runs where ptyhost does
// (Linux and the BSDs).
package termdriver

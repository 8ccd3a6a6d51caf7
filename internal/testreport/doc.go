// Package testreport turns the event stream of `go test -json` back into
// the lines a person expects from `go test` (one line per package, the
// output of failing tests) and ends it with a summary that go test itself
// does not give in package-list mode: how many tests passed, failed and
// were skipped, and, loudly, which tests were skipped because a tool they
// need (tmux, asciinema, chromium) is not installed.
//
// A Reporter is for one goroutine: feed it one stream with Consume, then
// call Summary once.
package testreport

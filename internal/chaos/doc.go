// Package chaos is the relay's fault-injection suite: real ptyhost
// binaries on loopback, each case breaking one thing a production relay
// meets (a node killed with SIGKILL, the NATS server lost, a link
// black-holed past the silence timeout, a restart under a firehose, a full
// disk under a recording, ten thousand idle connections, hostile peers)
// and asserting what the viewers see: how long they saw nothing, whether a
// snapshot bridged the gap, how many frames it replaced, that their final
// screen equals the host emulator's and that the Exit reached them.
//
// The package holds only tests. Each case logs a line starting "chaos:"
// with its figures; docs/reliability.md keeps a table of them.
//
// # Forms
//
// `go test ./internal/chaos` runs the short form, a subset at small sizes
// for CI. PTYHOST_CHAOS=full runs every case at full size:
//
//	PTYHOST_CHAOS=full go test -v -timeout 30m ./internal/chaos
//
// The suite builds ptyhost (with the embedded NATS server) and, for the
// cases that need one, nats-server from the module cache, once per run. It
// skips when the go command is missing, and fails instead when
// PTYHOST_REQUIRE_TOOLS=1.
package chaos

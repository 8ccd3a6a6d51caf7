//go:build !ptyhost_natsembedded

package main

// natsEmbeddedBuilt reports whether this binary links nats-server for
// --nats embedded. It does not by default: nats-server's init arms a
// timer that costs every command, exec and run included, about 14% more
// CPU on a busy PTY (docs/performance.md).
const natsEmbeddedBuilt = false

// startEmbeddedNATS fails with errNoEmbeddedNATS: this binary was built
// without the ptyhost_natsembedded tag. relayCmd refuses --nats embedded
// before it gets here; this keeps the call site the same in both builds.
func startEmbeddedNATS(natsFlags, string) (embeddedNATS, error) { return nil, errNoEmbeddedNATS }

//go:build ptyhost_natsembedded

package main

import "github.com/ptyhost/ptyhost/relay/natsembed"

// natsEmbeddedBuilt reports whether this binary links nats-server for
// --nats embedded.
const natsEmbeddedBuilt = true

// startEmbeddedNATS runs a NATS server with JetStream in this process on
// listen, stored in store (empty: a temporary directory).
func startEmbeddedNATS(listen, store string) (embeddedNATS, error) {
	srv, err := natsembed.Start(listen, natsembed.Options{StoreDir: store})
	if err != nil {
		return nil, err
	}
	return srv, nil
}

//go:build ptyhost_natsembedded

package main

import "github.com/ptyhost/ptyhost/relay/natsembed"

// natsEmbeddedBuilt reports whether this binary links nats-server for
// --nats embedded.
const natsEmbeddedBuilt = true

// startEmbeddedNATS runs a NATS server with JetStream in this process as
// nf says, named after the relay's node.
func startEmbeddedNATS(nf natsFlags, node string) (embeddedNATS, error) {
	srv, err := natsembed.Start(nf.listen, natsembed.Options{StoreDir: nf.store, Name: node,
		ClusterAddr: nf.cluster, Routes: nf.routes})
	if err != nil {
		return nil, err
	}
	return srv, nil
}

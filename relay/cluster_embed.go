package relay

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// EmbeddedNATS is a NATS server with JetStream running inside this process
// (`ptyhost relay --nats embedded`): a one-binary seed that other relay
// nodes join with `--nats nats://ADDR`, and the server of the cluster's
// tests. Safe for concurrent use; Close is idempotent.
type EmbeddedNATS struct {
	srv *server.Server
	tmp string // the store directory StartNATS made, removed by Close
}

// StartNATS runs a NATS server listening on addr ("127.0.0.1:4222"; port
// 0 picks a free one) with its JetStream store in storeDir (empty: a new
// temporary directory, removed on Close). It returns once the server takes
// connections.
func StartNATS(addr, storeDir string) (*EmbeddedNATS, error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, fmt.Errorf("relay: nats address %q: %w", addr, err)
	}
	port, err := strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return nil, fmt.Errorf("relay: nats address %q: bad port", addr)
	}
	if port == 0 {
		port = server.RANDOM_PORT
	}
	e := &EmbeddedNATS{}
	if storeDir == "" {
		if storeDir, err = os.MkdirTemp("", "ptyhost-nats-"); err != nil {
			return nil, fmt.Errorf("relay: nats store: %w", err)
		}
		e.tmp = storeDir
	}
	e.srv, err = server.NewServer(&server.Options{Host: host, Port: port, JetStream: true,
		StoreDir: storeDir, NoSigs: true, NoLog: true})
	if err != nil {
		e.removeStore()
		return nil, fmt.Errorf("relay: nats server: %w", err)
	}
	go e.srv.Start()
	if !e.srv.ReadyForConnections(10 * time.Second) {
		e.Close()
		return nil, fmt.Errorf("relay: nats server on %s did not start", addr)
	}
	return e, nil
}

// ClientURL is the address clients (and other relay nodes) connect to.
func (e *EmbeddedNATS) ClientURL() string { return e.srv.ClientURL() }

// Close stops the server, waits for it, and removes a temporary store.
func (e *EmbeddedNATS) Close() {
	e.srv.Shutdown()
	e.srv.WaitForShutdown()
	e.removeStore()
}

func (e *EmbeddedNATS) removeStore() {
	if e.tmp != "" {
		os.RemoveAll(e.tmp)
	}
}

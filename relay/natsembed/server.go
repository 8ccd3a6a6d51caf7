package natsembed

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/url"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/nats-io/nats-server/v2/server"
)

// ErrBadAddress is matched by the error Start returns for a listen
// address that is not HOST:PORT with a port in 0..65535.
var ErrBadAddress = errors.New("natsembed: bad listen address")

// ErrNotReady is matched by the error Start returns when the server did
// not take connections within ten seconds.
var ErrNotReady = errors.New("natsembed: the server did not take connections in time")

// readyTimeout bounds how long Start waits for the server to take
// connections. JetStream recovering a large store can take a while; an
// empty one starts in milliseconds.
const readyTimeout = 10 * time.Second

// Options configures Start. The zero value is a server with a temporary
// store and the server's default limits.
type Options struct {
	// StoreDir is the directory of the JetStream store. Empty: a new
	// temporary directory, removed by Close.
	StoreDir string

	// MaxPayload caps the size of one message in bytes. Zero: the
	// server's default (1 MiB). Clients learn it when they connect.
	MaxPayload int32

	// Name is the server's name, unique in its cluster (the relay node's
	// name). Empty: one the server makes up.
	Name string

	// ClusterAddr is where the server listens for its peers' routes
	// (HOST:PORT; port 0 picks a free one, see ClusterURL). Empty: the
	// server is alone, and Routes must be empty too.
	ClusterAddr string

	// Routes are the cluster's route addresses (nats://HOST:PORT, each
	// server's ClusterAddr) to join; required with ClusterAddr, since
	// JetStream will not run clustered without them. Every server may be
	// given the same list, its own address included (a route to itself
	// is skipped): then any of them may start first.
	Routes []string

	// ClusterName names the cluster; its servers must agree. Empty:
	// "ptyhost".
	ClusterName string
}

// Server is a running NATS server with JetStream. Safe for concurrent use.
type Server struct {
	srv  *server.Server
	tmp  string // the store directory Start made, removed by Close
	once sync.Once
	err  error // Close's result, the same for every call
}

// Start runs a NATS server with JetStream listening on addr (HOST:PORT,
// e.g. "127.0.0.1:4222"; port 0 picks a free one) and returns once it
// takes connections.
func Start(addr string, opts Options) (*Server, error) {
	if opts.MaxPayload < 0 {
		return nil, fmt.Errorf("natsembed: max payload %d is negative", opts.MaxPayload)
	}
	host, port, err := splitAddr(addr)
	if err != nil {
		return nil, err
	}
	if port == 0 {
		port = server.RANDOM_PORT
	} else if err := probe(addr); err != nil {
		// The server would only say so through its log, which is off,
		// after readyTimeout; a taken port is the common mistake.
		return nil, err
	}
	s := &Server{}
	store := opts.StoreDir
	if store == "" {
		if store, err = os.MkdirTemp("", "ptyhost-nats-"); err != nil {
			return nil, fmt.Errorf("natsembed: store: %w", err)
		}
		s.tmp = store
	}
	sopts := &server.Options{Host: host, Port: port, JetStream: true, ServerName: opts.Name,
		StoreDir: store, MaxPayload: opts.MaxPayload, NoSigs: true, NoLog: true}
	if err := clusterOptions(sopts, opts); err != nil {
		s.removeStore()
		return nil, err
	}
	s.srv, err = server.NewServer(sopts)
	if err != nil {
		s.removeStore()
		return nil, fmt.Errorf("natsembed: new server: %w", err)
	}
	// Start returns once the server's own goroutines are running (the
	// accept loop among them); Shutdown, in Close, stops and joins them.
	s.srv.Start()
	if !s.srv.ReadyForConnections(readyTimeout) {
		s.Close()
		return nil, fmt.Errorf("%w: on %s after %v", ErrNotReady, addr, readyTimeout)
	}
	return s, nil
}

// splitAddr parses addr as HOST:PORT.
func splitAddr(addr string) (host string, port int, err error) {
	host, p, err := net.SplitHostPort(addr)
	if err != nil {
		return "", 0, fmt.Errorf("%w %q: %w", ErrBadAddress, addr, err)
	}
	port, err = strconv.Atoi(p)
	if err != nil || port < 0 || port > 65535 {
		return "", 0, fmt.Errorf("%w %q: port %q is not a number in 0..65535", ErrBadAddress, addr, p)
	}
	return host, port, nil
}

// clusterOptions sets the route listener and the peers of a clustered
// server. JetStream in a cluster replicates a stream or key-value bucket
// on as many servers as its Replicas asks, so that losing one loses
// nothing: the reason to cluster at all.
func clusterOptions(so *server.Options, opts Options) error {
	if opts.ClusterAddr == "" {
		if len(opts.Routes) > 0 {
			return errors.New("natsembed: routes need a cluster address to listen on")
		}
		return nil
	}
	if len(opts.Routes) == 0 {
		return errors.New("natsembed: a clustered server needs routes: the cluster's route addresses")
	}
	host, port, err := splitAddr(opts.ClusterAddr)
	if err != nil {
		return fmt.Errorf("natsembed: cluster address: %w", err)
	}
	if port == 0 {
		port = server.RANDOM_PORT
	}
	name := opts.ClusterName
	if name == "" {
		name = "ptyhost"
	}
	so.Cluster = server.ClusterOpts{Name: name, Host: host, Port: port}
	for _, r := range opts.Routes {
		u, err := url.Parse(r)
		if err != nil || u.Host == "" || (u.Scheme != "nats" && u.Scheme != "nats-route") {
			return fmt.Errorf("natsembed: route %q: want nats://HOST:PORT", r)
		}
		so.Routes = append(so.Routes, u)
	}
	return nil
}

// ClusterURL is the address peers list in their Routes to join this
// server (nats://HOST:PORT), or "" for a server alone.
func (s *Server) ClusterURL() string {
	if a := s.srv.ClusterAddr(); a != nil {
		return "nats://" + a.String()
	}
	return ""
}

// WaitCluster returns once a clustered server's JetStream has a leader
// and this server is current with it, or with ctx's error. A relay node
// started with its peers calls it so that its first request for the
// cluster's bucket is not lost to the election. A server alone returns at
// once.
func (s *Server) WaitCluster(ctx context.Context) error {
	if !s.srv.JetStreamIsClustered() {
		return nil
	}
	tick := time.NewTicker(50 * time.Millisecond)
	defer tick.Stop()
	for !s.srv.JetStreamIsCurrent() {
		select {
		case <-ctx.Done():
			return fmt.Errorf("natsembed: waiting for the cluster's JetStream leader: %w", ctx.Err())
		case <-tick.C:
		}
	}
	return nil
}

// probe reports whether addr can be listened on, by listening and closing.
func probe(addr string) error {
	l, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("natsembed: listen: %w", err)
	}
	return l.Close()
}

// ClientURL is the address clients, and other relay nodes, connect to
// (nats://HOST:PORT, with the port the server picked for port 0).
func (s *Server) ClientURL() string { return s.srv.ClientURL() }

// Stats are the server's message counters since it started, over all
// its clients (JetStream's internal ones included). The server adds a
// client's messages once it has handled the read that held them, so a
// subscriber may hold a message a moment before it is counted.
type Stats struct {
	InMsgs, InBytes   int64 // published to the server
	OutMsgs, OutBytes int64 // delivered by the server to subscribers
}

// Stats returns the server's message counters.
func (s *Server) Stats() (Stats, error) {
	v, err := s.srv.Varz(nil)
	if err != nil {
		return Stats{}, fmt.Errorf("natsembed: stats: %w", err)
	}
	return Stats{InMsgs: v.InMsgs, InBytes: v.InBytes, OutMsgs: v.OutMsgs, OutBytes: v.OutBytes}, nil
}

// Close stops the server, waits for it to shut down, and removes the
// store Start made (never one given in Options.StoreDir). Its error is
// that of the removal; every call returns the first call's.
func (s *Server) Close() error {
	s.once.Do(func() {
		s.srv.Shutdown()
		s.srv.WaitForShutdown()
		s.err = s.removeStore()
	})
	return s.err
}

func (s *Server) removeStore() error {
	if s.tmp == "" {
		return nil
	}
	if err := os.RemoveAll(s.tmp); err != nil {
		return fmt.Errorf("natsembed: remove store: %w", err)
	}
	return nil
}

package relay_test

import (
	"sync"
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/ptyhost/ptyhost/relay/natsembed"
)

// natsSpy keeps every message published on some subjects of a test's
// NATS server, each as its subject, a space and its data, for tests that
// look at what crossed between the nodes.
type natsSpy struct {
	conn *nats.Conn
	mu   sync.Mutex
	msgs [][]byte
}

// spyOn subscribes a spy to subjects of ns until the test ends. A spy on
// a request subject would not answer, turning a missing responder into a
// timeout: listen where frames and controls travel.
func spyOn(t testing.TB, ns *natsembed.Server, subjects ...string) *natsSpy {
	t.Helper()
	c, err := nats.Connect(ns.ClientURL())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(c.Close)
	s := &natsSpy{conn: c}
	for _, subject := range subjects {
		if _, err := c.Subscribe(subject, func(m *nats.Msg) {
			s.mu.Lock()
			s.msgs = append(s.msgs, append([]byte(m.Subject+" "), m.Data...))
			s.mu.Unlock()
		}); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// seen returns the messages kept so far, after a round trip to the
// server so that all it has delivered is in.
func (s *natsSpy) seen() [][]byte {
	s.conn.Flush()
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([][]byte(nil), s.msgs...)
}

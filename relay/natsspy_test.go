package relay_test

import (
	"testing"

	"github.com/nats-io/nats.go"
	"github.com/ptyhost/ptyhost/relay/natsembed"
)

// natsSpy keeps every message published on some subjects of a test's
// NATS server, each as its subject, a space and its data, for tests that
// look at what crossed between the nodes.
type natsSpy struct {
	conn *nats.Conn
	ch   chan *nats.Msg
	msgs [][]byte
}

// spyBuffer is how many messages a spy holds before its subscription
// counts as a slow consumer: more than any test here sends.
const spyBuffer = 1 << 16

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
	// A channel subscription: its messages are in the channel as soon as
	// the connection has read them, so after a Flush the spy holds all
	// the server had delivered (a callback could still be running).
	s := &natsSpy{conn: c, ch: make(chan *nats.Msg, spyBuffer)}
	for _, subject := range subjects {
		if _, err := c.ChanSubscribe(subject, s.ch); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// seen returns the messages kept so far, after a round trip to the
// server so that all it has delivered is in. It is for the test's own
// goroutine.
func (s *natsSpy) seen() [][]byte {
	s.conn.Flush()
	for {
		select {
		case m := <-s.ch:
			s.msgs = append(s.msgs, append([]byte(m.Subject+" "), m.Data...))
		default:
			return append([][]byte(nil), s.msgs...)
		}
	}
}

package main

import (
	"context"
	"net/http"
	"strings"
	"sync"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost/relay"
)

// bareForwarder is the least a relay could be: one writer connection per
// room (…/host), any number of readers (any other path under /v1/rooms/),
// every message the writer sends queued for every reader as it is, in a
// bounded queue per reader (a reader whose queue is full is closed), no
// parsing, no tokens, nothing sent of its own. It accepts the same dials
// the relay does (the same subprotocol), so the two are compared on the
// same load.
type bareForwarder struct {
	mu    sync.Mutex
	rooms map[string]map[*bareReader]struct{}
}

// bareQueue is each reader's queue, in messages.
const bareQueue = 256

type bareReader struct {
	c *websocket.Conn
	q chan []byte
}

func newBareForwarder() *bareForwarder {
	return &bareForwarder{rooms: make(map[string]map[*bareReader]struct{})}
}

func (b *bareForwarder) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rest, ok := strings.CutPrefix(r.URL.Path, "/v1/rooms/")
	if !ok {
		http.NotFound(w, r)
		return
	}
	c, err := websocket.Accept(w, r, &websocket.AcceptOptions{Subprotocols: []string{relay.Subprotocol}, InsecureSkipVerify: true})
	if err != nil {
		return
	}
	c.SetReadLimit(16 << 20)
	room, host := strings.CutSuffix(rest, "/host")
	if host {
		b.write(r.Context(), room, c)
		return
	}
	b.read(r.Context(), room, c)
}

// write forwards the writer's messages to the room's readers.
func (b *bareForwarder) write(ctx context.Context, room string, c *websocket.Conn) {
	defer c.CloseNow()
	for {
		_, msg, err := c.Read(ctx)
		if err != nil {
			return
		}
		b.mu.Lock()
		for rd := range b.rooms[room] {
			select {
			case rd.q <- msg:
			default:
				rd.c.CloseNow() // a reader that cannot keep up
			}
		}
		b.mu.Unlock()
	}
}

// read registers a reader, writes its queue out, and drops what it sends.
func (b *bareForwarder) read(ctx context.Context, room string, c *websocket.Conn) {
	rd := &bareReader{c: c, q: make(chan []byte, bareQueue)}
	b.mu.Lock()
	if b.rooms[room] == nil {
		b.rooms[room] = make(map[*bareReader]struct{})
	}
	b.rooms[room][rd] = struct{}{}
	b.mu.Unlock()
	defer func() {
		b.mu.Lock()
		delete(b.rooms[room], rd)
		if len(b.rooms[room]) == 0 {
			delete(b.rooms, room)
		}
		b.mu.Unlock()
		c.CloseNow()
	}()
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		defer cancel()
		for {
			select {
			case msg := <-rd.q:
				if c.Write(ctx, websocket.MessageBinary, msg) != nil {
					return
				}
			case <-ctx.Done():
				return
			}
		}
	}()
	for {
		if _, _, err := c.Read(ctx); err != nil {
			return
		}
	}
}

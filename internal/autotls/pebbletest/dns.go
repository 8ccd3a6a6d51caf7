package pebbletest

import (
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"
	"time"
)

// DNS is a DNS server on 127.0.0.1, over UDP and TCP on one port, that
// answers every A question with 127.0.0.1 and every other question with no
// records, so that a validation authority given its address looks for any
// domain on loopback. (Pebble asks over TCP.) Its methods are safe for
// concurrent use.
type DNS struct {
	udp  net.PacketConn
	tcp  net.Listener
	wg   sync.WaitGroup
	mu   sync.Mutex
	open map[net.Conn]bool
}

// StartDNS starts a DNS server on a free port of 127.0.0.1.
func StartDNS() (*DNS, error) {
	// The TCP port is free; the same UDP port nearly always is too, and
	// when it is not another port is tried.
	var err error
	for range 10 {
		var tcp net.Listener
		if tcp, err = net.Listen("tcp", "127.0.0.1:0"); err != nil {
			return nil, err
		}
		var udp net.PacketConn
		if udp, err = net.ListenPacket("udp", tcp.Addr().String()); err != nil {
			tcp.Close()
			continue
		}
		d := &DNS{udp: udp, tcp: tcp, open: make(map[net.Conn]bool)}
		d.wg.Add(2)
		go d.serveUDP()
		go d.serveTCP()
		return d, nil
	}
	return nil, err
}

// Addr is the server's address (127.0.0.1:PORT).
func (d *DNS) Addr() string { return d.tcp.Addr().String() }

// Close stops the server and waits for it.
func (d *DNS) Close() error {
	d.udp.Close()
	d.tcp.Close()
	d.mu.Lock()
	for c := range d.open {
		c.Close()
	}
	d.mu.Unlock()
	d.wg.Wait()
	return nil
}

func (d *DNS) serveUDP() {
	defer d.wg.Done()
	buf := make([]byte, 1500)
	for {
		n, from, err := d.udp.ReadFrom(buf)
		if err != nil {
			return
		}
		// A message that is no question goes unanswered, as a real
		// server's would when it cannot even echo an ID.
		if resp, err := Answer(buf[:n]); err == nil {
			d.udp.WriteTo(resp, from)
		}
	}
}

func (d *DNS) serveTCP() {
	defer d.wg.Done()
	for {
		c, err := d.tcp.Accept()
		if err != nil {
			return
		}
		d.mu.Lock()
		d.open[c] = true
		d.mu.Unlock()
		d.wg.Add(1)
		go d.serveConn(c)
	}
}

// serveConn answers the length-prefixed messages of one TCP connection
// (RFC 1035, section 4.2.2) until the peer closes it or sends one that is
// no question.
func (d *DNS) serveConn(c net.Conn) {
	defer d.wg.Done()
	defer func() {
		d.mu.Lock()
		delete(d.open, c)
		d.mu.Unlock()
		c.Close()
	}()
	c.SetDeadline(time.Now().Add(time.Minute))
	var size [2]byte
	for {
		if _, err := io.ReadFull(c, size[:]); err != nil {
			return
		}
		msg := make([]byte, binary.BigEndian.Uint16(size[:]))
		if _, err := io.ReadFull(c, msg); err != nil {
			return
		}
		resp, err := Answer(msg)
		if err != nil {
			return
		}
		out := binary.BigEndian.AppendUint16(nil, uint16(len(resp)))
		if _, err := c.Write(append(out, resp...)); err != nil {
			return
		}
	}
}

// DNS's wire constants (RFC 1035, section 4.1).
const (
	headerLen  = 12
	typeA      = 1
	classIN    = 1
	flagQR     = 0x8000
	flagAA     = 0x0400
	flagRD     = 0x0100
	flagRA     = 0x0080
	opcodeMask = 0x7800
	rcodeNI    = 4 // not implemented
	maxNameLen = 255
)

// Errors of Answer.
var (
	errShort    = errors.New("dns: message shorter than its header")
	errNotQuery = errors.New("dns: not one question")
	errName     = errors.New("dns: malformed question name")
)

// Answer makes the response to the DNS query msg: the question echoed and,
// for an A question of class IN, one record of 127.0.0.1. It refuses (with
// an error, and no response to send) a message that is a response, that
// does not have exactly one question, or whose question is cut short or
// uses compression (which no query's single question needs).
func Answer(msg []byte) ([]byte, error) {
	if len(msg) < headerLen {
		return nil, errShort
	}
	flags := binary.BigEndian.Uint16(msg[2:])
	if flags&flagQR != 0 || binary.BigEndian.Uint16(msg[4:]) != 1 {
		return nil, errNotQuery
	}
	i := headerLen
	for {
		if i >= len(msg) {
			return nil, errName
		}
		l := int(msg[i])
		if l == 0 {
			i++
			break
		}
		if l > 63 || i+1+l-headerLen > maxNameLen {
			return nil, errName
		}
		i += 1 + l
	}
	if i+4 > len(msg) {
		return nil, errName
	}
	question := msg[headerLen : i+4]
	qtype := binary.BigEndian.Uint16(msg[i:])
	qclass := binary.BigEndian.Uint16(msg[i+2:])

	out := make([]byte, headerLen, headerLen+len(question)+16)
	copy(out, msg[:2])
	rflags := flagQR | flagAA | flagRA | flags&(opcodeMask|flagRD)
	var answers uint16
	switch {
	case flags&opcodeMask != 0:
		rflags |= rcodeNI
	case qtype == typeA && qclass == classIN:
		answers = 1
	}
	binary.BigEndian.PutUint16(out[2:], uint16(rflags))
	binary.BigEndian.PutUint16(out[4:], 1)
	binary.BigEndian.PutUint16(out[6:], answers)
	out = append(out, question...)
	if answers == 1 {
		// The name is a pointer to the question's (offset 12); TTL 0.
		out = append(out, 0xc0, headerLen, 0, typeA, 0, classIN, 0, 0, 0, 0, 0, 4, 127, 0, 0, 1)
	}
	return out, nil
}

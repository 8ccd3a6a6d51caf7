package pebbletest

import (
	"bytes"
	"context"
	"net"
	"testing"
	"time"
)

// query is a DNS query for name (dot-separated, no final dot) of qtype.
func query(id uint16, name string, qtype uint16) []byte {
	q := []byte{byte(id >> 8), byte(id), 0x01, 0x00, 0, 1, 0, 0, 0, 0, 0, 0}
	for _, l := range bytes.Split([]byte(name), []byte(".")) {
		q = append(q, byte(len(l)))
		q = append(q, l...)
	}
	return append(q, 0, byte(qtype>>8), byte(qtype), 0, classIN)
}

// The system's resolver, pointed at the server, finds every name on
// 127.0.0.1, over UDP and over TCP.
func TestDNSResolvesEverythingToLoopback(t *testing.T) {
	d, err := StartDNS()
	if err != nil {
		t.Fatal(err)
	}
	defer d.Close()
	for _, network := range []string{"udp", "tcp"} {
		r := &net.Resolver{PreferGo: true, Dial: func(ctx context.Context, _, _ string) (net.Conn, error) {
			var dl net.Dialer
			return dl.DialContext(ctx, network, d.Addr())
		}}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		addrs, err := r.LookupHost(ctx, "relay.ptyhost.test")
		cancel()
		if err != nil || len(addrs) != 1 || addrs[0] != "127.0.0.1" {
			t.Errorf("over %s: %q, %v", network, addrs, err)
		}
	}
}

func TestAnswer(t *testing.T) {
	resp, err := Answer(query(0xbeef, "relay.ptyhost.test", typeA))
	if err != nil {
		t.Fatal(err)
	}
	if resp[0] != 0xbe || resp[1] != 0xef || resp[2]&0x80 == 0 || resp[7] != 1 {
		t.Fatalf("header % x", resp[:12])
	}
	if !bytes.HasSuffix(resp, []byte{0, 4, 127, 0, 0, 1}) {
		t.Fatalf("no 127.0.0.1 in % x", resp)
	}
	resp, err = Answer(query(1, "relay.ptyhost.test", 28)) // AAAA
	if err != nil || resp[7] != 0 || resp[3]&0x0f != 0 {
		t.Fatalf("AAAA: % x, %v", resp, err)
	}
}

func TestAnswerRefusesMalformed(t *testing.T) {
	good := query(1, "a.test", typeA)
	response := append([]byte(nil), good...)
	response[2] |= 0x80
	two := append([]byte(nil), good...)
	two[5] = 2
	pointer := append(append([]byte(nil), good[:12]...), 0xc0, 12, 0, 1, 0, 1)
	long := append([]byte(nil), good[:12]...)
	for range 5 {
		long = append(long, 63)
		long = append(long, bytes.Repeat([]byte("a"), 63)...)
	}
	long = append(long, 0, 0, 1, 0, 1)
	for name, msg := range map[string][]byte{
		"empty":              nil,
		"short header":       good[:11],
		"a response":         response,
		"two questions":      two,
		"cut in the name":    good[:15],
		"no type and class":  good[:len(good)-4],
		"cut in the class":   good[:len(good)-1],
		"compressed name":    pointer,
		"name over 255":      long,
		"label length alone": append(append([]byte(nil), good[:12]...), 5),
	} {
		if resp, err := Answer(msg); err == nil {
			t.Errorf("%s: answered % x", name, resp)
		}
	}
}

// FuzzAnswer: whatever arrives, Answer does not panic, and what it answers
// echoes the ID and the question and says it is a response.
func FuzzAnswer(f *testing.F) {
	f.Add(query(1, "relay.ptyhost.test", typeA))
	f.Add(query(2, "x.test", 28))
	f.Add([]byte{0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0xc0, 12})
	f.Fuzz(func(t *testing.T, msg []byte) {
		resp, err := Answer(msg)
		if err != nil {
			return
		}
		if len(resp) < headerLen || !bytes.Equal(resp[:2], msg[:2]) || resp[2]&0x80 == 0 {
			t.Fatalf("Answer(% x) = % x", msg, resp)
		}
	})
}

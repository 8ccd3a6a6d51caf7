package faultproxy

import "bytes"

// wsPhase is where a wsTracker stands in one direction of a connection.
type wsPhase int

const (
	phaseHTTP    wsPhase = iota // inside the HTTP request or response head
	phaseHeader                 // inside a WebSocket frame header
	phasePayload                // inside a WebSocket frame payload
	phaseOpaque                 // not a WebSocket stream: nothing to follow
)

// maxStatusLine bounds how much of the response's first line is kept to
// find its status code.
const maxStatusLine = 64

// wsTracker follows one direction of a connection through the HTTP upgrade
// and then frame by frame (RFC 6455 §5.2 headers: two bytes, a 16- or
// 64-bit extended length, a 4-byte mask key when masked), so that a cut can
// be placed strictly inside a frame's payload. It only reads the bytes; a
// response other than 101 makes the rest of the stream opaque.
type wsTracker struct {
	response bool // the direction carries the HTTP response (downstream)
	phase    wsPhase
	crlf     int    // how much of "\r\n\r\n" the head has matched
	status   []byte // the response's first line, up to maxStatusLine
	inFirst  bool   // still on the first line of the head
	hdr      [14]byte
	nhdr     int
	left     uint64 // payload bytes still to come
	done     uint64 // payload bytes already seen
}

func newTracker(response bool) wsTracker {
	return wsTracker{response: response, inFirst: true}
}

// midFrame reports whether the bytes seen so far end strictly inside a
// frame's payload: at least one payload byte seen and at least one to come.
func (t *wsTracker) midFrame() bool {
	return t.phase == phasePayload && t.done >= 1 && t.left >= 1
}

// advance follows p and returns how many of its bytes it took. With
// stopMid it stops at the first point where midFrame holds and reports
// true; otherwise it takes all of p.
func (t *wsTracker) advance(p []byte, stopMid bool) (int, bool) {
	i := 0
	for {
		if stopMid && t.midFrame() {
			return i, true
		}
		if i == len(p) || t.phase == phaseOpaque {
			return len(p), false
		}
		switch t.phase {
		case phaseHTTP:
			t.headByte(p[i])
			i++
		case phaseHeader:
			t.headerByte(p[i])
			i++
		case phasePayload:
			k := min(uint64(len(p)-i), t.left)
			if stopMid && t.done == 0 {
				k = 1
			}
			t.left -= k
			t.done += k
			i += int(k)
			if t.left == 0 {
				t.phase, t.nhdr = phaseHeader, 0
			}
		}
	}
}

// headByte takes one byte of the HTTP head, which ends at "\r\n\r\n".
func (t *wsTracker) headByte(b byte) {
	if t.inFirst {
		if b == '\r' || b == '\n' {
			t.inFirst = false
		} else if len(t.status) < maxStatusLine {
			t.status = append(t.status, b)
		}
	}
	switch {
	case b == "\r\n\r\n"[t.crlf]:
		t.crlf++
	case b == '\r':
		t.crlf = 1
	default:
		t.crlf = 0
	}
	if t.crlf < 4 {
		return
	}
	t.phase = phaseHeader
	if t.response && !switchesProtocols(t.status) {
		t.phase = phaseOpaque
	}
}

// switchesProtocols reports whether an HTTP status line has status 101.
func switchesProtocols(line []byte) bool {
	_, rest, ok := bytes.Cut(line, []byte(" "))
	return ok && bytes.HasPrefix(rest, []byte("101"))
}

// headerByte takes one byte of a frame header and starts the payload once
// the header is complete.
func (t *wsTracker) headerByte(b byte) {
	t.hdr[t.nhdr] = b
	t.nhdr++
	if t.nhdr < 2 || t.nhdr < headerLen(t.hdr[1]) {
		return
	}
	var n uint64
	switch l7 := t.hdr[1] & 0x7f; l7 {
	case 126:
		n = uint64(t.hdr[2])<<8 | uint64(t.hdr[3])
	case 127:
		for _, c := range t.hdr[2:10] {
			n = n<<8 | uint64(c)
		}
	default:
		n = uint64(l7)
	}
	t.nhdr = 0
	if n > 0 {
		t.phase, t.left, t.done = phasePayload, n, 0
	}
}

// headerLen returns the length of a frame header from its second byte.
func headerLen(b1 byte) int {
	n := 2
	switch b1 & 0x7f {
	case 126:
		n += 2
	case 127:
		n += 8
	}
	if b1&0x80 != 0 {
		n += 4
	}
	return n
}

package relay_test

import (
	"bufio"
	"crypto/rand"
	"encoding/base64"
	"encoding/binary"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/relay"
	"github.com/ptyhost/ptyhost/relaytest"
)

// TestViewerSubscribePipelinedWithUpgrade: a client that sends its
// subscribe in the same write as its upgrade request, before the 101,
// has it read: the bytes net/http had buffered past the request are
// read before the connection's (a viewer's connection gets a small read
// buffer of its own in place of net/http's).
func TestViewerSubscribePipelinedWithUpgrade(t *testing.T) {
	s := relaytest.NewServer(t, quiet())
	dialHost(t, s, 1)
	tok := s.ViewerToken(t, room, "pipelined")

	sub, err := attachwire.ControlFrame(attachwire.Subscribe{SessionID: room, AsRole: attachwire.RoleViewer})
	if err != nil {
		t.Fatal(err)
	}
	payload, err := sub.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	key := make([]byte, 16)
	rand.Read(key)
	req := fmt.Sprintf("GET /v1/rooms/%s HTTP/1.1\r\nHost: %s\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"+
		"Sec-WebSocket-Key: %s\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Protocol: %s\r\nAuthorization: Bearer %s\r\n\r\n",
		room, strings.TrimPrefix(s.URL, "ws://"), base64.StdEncoding.EncodeToString(key), relay.Subprotocol, tok)
	c, err := net.Dial("tcp", strings.TrimPrefix(s.URL, "ws://"))
	if err != nil {
		t.Fatal(err)
	}
	defer c.Close()
	c.SetDeadline(time.Now().Add(relaytest.Timeout))
	if _, err := c.Write(append([]byte(req), clientFrame(payload)...)); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(c)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatal(err)
	}
	if resp.StatusCode != http.StatusSwitchingProtocols {
		t.Fatalf("upgrade: %s", resp.Status)
	}
	// The relay says nothing before it has read a subscribe; then the
	// room's state comes first.
	f := readServerFrame(t, br)
	if f.Type != attachwire.TypeControl {
		t.Fatalf("first frame %v, want a control", f.Type)
	}
	ctl, err := attachwire.DecodeControl(f.Payload)
	if err != nil {
		t.Fatal(err)
	}
	if st, ok := ctl.(attachwire.RoomState); !ok || st.State != attachwire.RoomLive {
		t.Fatalf("first control %#v, want room_state live", ctl)
	}
}

// clientFrame is payload as one masked binary WebSocket frame.
func clientFrame(payload []byte) []byte {
	hdr := []byte{0x82}
	switch n := len(payload); {
	case n < 126:
		hdr = append(hdr, 0x80|byte(n))
	case n < 1<<16:
		hdr = append(hdr, 0x80|126, byte(n>>8), byte(n))
	default:
		hdr = append(hdr, 0x80|127)
		hdr = binary.BigEndian.AppendUint64(hdr, uint64(n))
	}
	mask := []byte{0x1b, 0x2c, 0x3d, 0x4e}
	out := append(hdr, mask...)
	for i, b := range payload {
		out = append(out, b^mask[i%4])
	}
	return out
}

// readServerFrame reads one unmasked binary frame the relay sent and
// decodes it.
func readServerFrame(t *testing.T, r io.Reader) attachwire.Frame {
	t.Helper()
	var h [2]byte
	if _, err := io.ReadFull(r, h[:]); err != nil {
		t.Fatal(err)
	}
	n := uint64(h[1] & 0x7f)
	switch n {
	case 126:
		var b [2]byte
		io.ReadFull(r, b[:])
		n = uint64(binary.BigEndian.Uint16(b[:]))
	case 127:
		var b [8]byte
		io.ReadFull(r, b[:])
		n = binary.BigEndian.Uint64(b[:])
	}
	if h[0]&0x0f != 0x2 {
		t.Fatalf("frame opcode %#x, want binary", h[0]&0x0f)
	}
	b := make([]byte, n)
	if _, err := io.ReadFull(r, b); err != nil {
		t.Fatal(err)
	}
	f, err := attachwire.DecodeFrame(b)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

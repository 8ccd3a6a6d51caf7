package seal

import (
	"crypto/hkdf"
	"crypto/sha256"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
)

func hkdfKey(t *testing.T, secret []byte, info string, n int) []byte {
	t.Helper()
	k, err := hkdf.Key(sha256.New, secret, nil, info, n)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

// atSeqMinusOne re-encodes a Snapshot frame at atSeq-1, as a relay serves
// the post-Exit snapshot before the Exit frame.
func atSeqMinusOne(t *testing.T, f attachwire.Frame) attachwire.Frame {
	t.Helper()
	s, err := attachwire.DecodeSnapshot(f.Payload)
	if err != nil {
		t.Fatal(err)
	}
	s.AtSeq--
	p, err := attachwire.AppendSnapshot(nil, s)
	if err != nil {
		t.Fatal(err)
	}
	f.Payload = p
	return f
}

// testRoom is a room under the vectors' key.
func testRoom(t testing.TB, session string) *Room {
	t.Helper()
	k, err := NewKey(make([]byte, KeySize))
	if err != nil {
		t.Fatal(err)
	}
	return NewRoom(k, session)
}

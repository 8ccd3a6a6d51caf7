package seal

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
)

var update = flag.Bool("update", false, "rewrite testdata/vectors.json from the code")

// vectorFile is testdata/vectors.json: the byte-for-byte examples of
// docs/protocol.md section 8, which any other implementation can check
// itself against.
type vectorFile struct {
	Key     string   `json:"key"`     // the room key, hex
	KeyText string   `json:"keyText"` // the key as a link carries it
	AEADKey string   `json:"aeadKey"` // HKDF-SHA256(key, "", "ptyhost e2e v1 aead key"), hex
	KeyID   string   `json:"keyId"`   // HKDF-SHA256(key, "", "ptyhost e2e v1 key id")[:8], hex
	Room    string   `json:"room"`    // the session id
	Vectors []vector `json:"vectors"`
}

type vector struct {
	Name   string `json:"name"`
	Epoch  uint64 `json:"epoch"`
	Final  bool   `json:"final,omitempty"` // sealed with SealFinal
	Nonce  string `json:"nonce"`           // hex
	Frame  string `json:"frame"`           // the plain frame, hex
	AAD    string `json:"aad"`             // hex
	Sealed string `json:"sealed"`          // the sealed frame, hex
}

// vectorKey is the fixed key of the vectors: bytes 00 01 … 1F.
func vectorKey() []byte {
	k := make([]byte, KeySize)
	for i := range k {
		k[i] = byte(i)
	}
	return k
}

// vectorFrames are the frames the vectors seal, one of each sealed type.
func vectorFrames(t *testing.T) []vector {
	t.Helper()
	scr := attachwire.Screen{Epoch: 7, Echo: attachwire.EchoOn, Cols: 2, Rows: 1}
	scr.Primary = []attachwire.Cell{{Content: "o"}, {Content: "k"}}
	snap, err := attachwire.NewSnapshot(3, &scr)
	if err != nil {
		t.Fatal(err)
	}
	sf, err := snap.Frame(4, 500)
	if err != nil {
		t.Fatal(err)
	}
	snapFinal, err := attachwire.NewSnapshot(9, &scr)
	if err != nil {
		t.Fatal(err)
	}
	ff, err := snapFinal.Frame(0, 0)
	if err != nil {
		t.Fatal(err)
	}
	mf, err := attachwire.Marker{Label: "build"}.Frame(5, 600)
	if err != nil {
		t.Fatal(err)
	}
	frames := []struct {
		name  string
		final bool
		f     attachwire.Frame
	}{
		{"output", false, attachwire.Frame{Type: attachwire.TypeOutput, Seq: 1, RelTime: 300, Payload: []byte("hi")}},
		{"input", false, attachwire.Input{InputSeq: 5, PenGeneration: 2, UserID: "u1", Data: []byte("ls\r")}.Frame(1, 0)},
		{"marker", false, mf},
		{"exit", false, attachwire.Exit{Code: 137, Signal: "SIGKILL"}.Frame(9, 900)},
		{"snapshot", false, sf},
		{"post-exit snapshot", true, ff},
	}
	var vs []vector
	for i, fr := range frames {
		nonce := make([]byte, NonceSize)
		for j := range nonce {
			nonce[j] = byte(0x40 + i*NonceSize + j)
		}
		raw, err := fr.f.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		vs = append(vs, vector{Name: fr.name, Epoch: 7, Final: fr.final, Nonce: hex.EncodeToString(nonce), Frame: hex.EncodeToString(raw)})
	}
	return vs
}

// aadOf returns the associated data Seal binds for f, for the vectors.
func aadOf(r *Room, f attachwire.Frame, epoch uint64, final bool) []byte {
	switch f.Type {
	case attachwire.TypeInput:
		in, _ := attachwire.DecodeInput(f.Payload)
		return r.aad(nil, f.Type, epoch, in.InputSeq, in.PenGeneration)
	case attachwire.TypeSnapshot:
		s, _ := attachwire.DecodeSnapshot(f.Payload)
		at := s.AtSeq
		if final {
			at--
		}
		return r.aad(nil, f.Type, at, uint64(s.Format), epoch)
	}
	return r.aad(nil, f.Type, epoch, f.Seq)
}

func unhex(t *testing.T, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestVectors seals each vector's frame with its fixed nonce and compares
// the associated data and the sealed frame with the committed bytes, then
// opens the committed sealed frame back into the frame. With -update it
// writes the file instead (a change to it is a change of the protocol).
func TestVectors(t *testing.T) {
	path := filepath.Join("testdata", "vectors.json")
	k, err := NewKey(vectorKey())
	if err != nil {
		t.Fatal(err)
	}
	const room = "room-1"
	r := NewRoom(k, room)
	if *update {
		aeadKey := hkdfKey(t, vectorKey(), infoAEAD, 32)
		vf := vectorFile{Key: hex.EncodeToString(vectorKey()), KeyText: k.Encode(), AEADKey: hex.EncodeToString(aeadKey), KeyID: hex.EncodeToString(k.id[:]), Room: room}
		for _, v := range vectorFrames(t) {
			f, err := attachwire.DecodeFrame(unhex(t, v.Frame))
			if err != nil {
				t.Fatal(err)
			}
			sealed, err := r.seal(f, v.Epoch, unhex(t, v.Nonce), v.Final)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := sealed.MarshalBinary()
			v.AAD, v.Sealed = hex.EncodeToString(aadOf(r, f, v.Epoch, v.Final)), hex.EncodeToString(raw)
			vf.Vectors = append(vf.Vectors, v)
		}
		b, _ := json.MarshalIndent(vf, "", "  ")
		if err := os.WriteFile(path, append(b, '\n'), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var vf vectorFile
	if err := json.Unmarshal(b, &vf); err != nil {
		t.Fatal(err)
	}
	if vf.Key != hex.EncodeToString(vectorKey()) || vf.KeyText != k.Encode() || vf.Room != room {
		t.Fatalf("vector file's key or room is not the test's")
	}
	if got := hex.EncodeToString(k.id[:]); got != vf.KeyID {
		t.Errorf("key id %s, vectors say %s", got, vf.KeyID)
	}
	if got := hex.EncodeToString(hkdfKey(t, vectorKey(), infoAEAD, 32)); got != vf.AEADKey {
		t.Errorf("aead key %s, vectors say %s", got, vf.AEADKey)
	}
	if len(vf.Vectors) != 6 {
		t.Fatalf("%d vectors, want 6", len(vf.Vectors))
	}
	for _, v := range vf.Vectors {
		t.Run(v.Name, func(t *testing.T) {
			f, err := attachwire.DecodeFrame(unhex(t, v.Frame))
			if err != nil {
				t.Fatal(err)
			}
			if got := hex.EncodeToString(aadOf(r, f, v.Epoch, v.Final)); got != v.AAD {
				t.Errorf("aad\n got %s\nwant %s", got, v.AAD)
			}
			sealed, err := r.seal(f, v.Epoch, unhex(t, v.Nonce), v.Final)
			if err != nil {
				t.Fatal(err)
			}
			raw, _ := sealed.MarshalBinary()
			if got := hex.EncodeToString(raw); got != v.Sealed {
				t.Errorf("sealed\n got %s\nwant %s", got, v.Sealed)
			}
			sf, err := attachwire.DecodeFrame(unhex(t, v.Sealed))
			if err != nil {
				t.Fatal(err)
			}
			if _, err := Check(sf); err != nil {
				t.Errorf("Check: %v", err)
			}
			if v.Final {
				sf = atSeqMinusOne(t, sf) // as the relay serves it
				f = atSeqMinusOne(t, f)
			}
			opened, err := r.Open(sf, v.Epoch)
			if err != nil {
				t.Fatal(err)
			}
			back, _ := opened.MarshalBinary()
			want, _ := f.MarshalBinary()
			if !bytes.Equal(back, want) {
				t.Errorf("opened\n got %x\nwant %x", back, want)
			}
		})
	}
}

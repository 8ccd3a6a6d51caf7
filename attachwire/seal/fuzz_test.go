package seal

import (
	"bytes"
	"encoding/hex"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
)

// FuzzOpen feeds arbitrary frames to Check and Open. Neither may panic;
// a frame Open accepts must also pass Check, and opening it again gives
// the same frame. Only the committed vectors (sealed under the fuzzer's
// key) can open; everything else must fail with ErrOpen or a framing
// error.
func FuzzOpen(f *testing.F) {
	b, err := os.ReadFile(filepath.Join("testdata", "vectors.json"))
	if err != nil {
		f.Fatal(err)
	}
	var vf vectorFile
	if err := json.Unmarshal(b, &vf); err != nil {
		f.Fatal(err)
	}
	for _, v := range vf.Vectors {
		raw, _ := hex.DecodeString(v.Sealed)
		f.Add(raw, v.Epoch)
	}
	key, _ := hex.DecodeString(vf.Key)
	k, err := NewKey(key)
	if err != nil {
		f.Fatal(err)
	}
	r := NewRoom(k, vf.Room)
	f.Fuzz(func(t *testing.T, msg []byte, epoch uint64) {
		fr, err := attachwire.DecodeFrame(msg)
		if err != nil {
			return
		}
		_, cerr := Check(fr)
		o, err := r.Open(fr, epoch)
		if err != nil {
			var fe *attachwire.FramingError
			if !errors.Is(err, ErrOpen) && !errors.As(err, &fe) {
				t.Fatalf("Open error %v is neither ErrOpen nor a framing error", err)
			}
			return
		}
		if Sealed(fr.Type) && cerr != nil {
			t.Fatalf("Open accepted a frame Check refuses: %v", cerr)
		}
		o2, err := r.Open(fr, epoch)
		if err != nil || !bytes.Equal(o.Payload, o2.Payload) {
			t.Fatalf("opening twice differs: %v", err)
		}
	})
}

package repaint

import (
	"math/rand/v2"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
)

// FuzzAppendScreen repaints every Screen attachwire's decoder accepts and
// checks that the result stays within the Viewer profile (Driver input
// modes included), whatever the cells hold.
func FuzzAppendScreen(f *testing.F) {
	r := rand.New(rand.NewPCG(3, 4))
	for _, s := range []*attachwire.Screen{goldenScreen(), randScreen(r, 7, 3, 2), randScreen(r, 2, 2, 1)} {
		enc, err := attachwire.AppendScreen(nil, s)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(enc)
	}
	f.Fuzz(func(t *testing.T, p []byte) {
		s, err := attachwire.DecodeScreen(p)
		if err != nil || s.Cols*s.Rows > 4096 {
			return
		}
		checkViewerSafe(t, string(AppendScreen(nil, &s, Options{Scrollback: true, InputModes: true})), true)
		checkViewerSafe(t, string(AppendInline(nil, &s)), false)
	})
}

package viewer_test

import (
	"math/rand/v2"
	"testing"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/sanitize"
	"github.com/ptyhost/ptyhost/internal/term"
	"github.com/ptyhost/ptyhost/internal/term/engine"
	"github.com/ptyhost/ptyhost/internal/term/termtest"
	"github.com/ptyhost/ptyhost/internal/testkit"
	"github.com/ptyhost/ptyhost/relaytest"
)

// frameSplits are the ways a host's reads can cut a program's output into
// Output frames: whole, byte by byte, in thirds, and in seeded random
// chunks of 1 to 64 bytes.
func frameSplits(data []byte) map[string][][]byte {
	out := map[string][][]byte{"whole": {data}}
	var bytes [][]byte
	for i := range data {
		bytes = append(bytes, data[i:i+1])
	}
	out["bytes"] = bytes
	n := len(data)
	out["thirds"] = [][]byte{data[:n/3], data[n/3 : 2*n/3], data[2*n/3:]}
	for _, seed := range []uint64{1, 2, 3} {
		r := rand.New(rand.NewPCG(seed, 99))
		var chunks [][]byte
		for rest := data; len(rest) > 0; {
			k := min(len(rest), 1+r.IntN(64))
			chunks = append(chunks, rest[:k])
			rest = rest[k:]
		}
		out["random-"+itoa(int(seed))] = chunks
	}
	return out
}

// The mirror of a viewer that watched a recorded TUI session (vim, less,
// htop and the rest of the project's recordings) equals the host's own
// screen at the end, however the output was cut into frames; where the
// relay's sanitizer changes the screen on purpose, it equals the screen of
// what the sanitizer lets through, and the case is listed with its reason.
func TestMirrorMatchesHostOnRecordings(t *testing.T) {
	seen := map[string]bool{}
	for _, rec := range termtest.LoadRecordings(t) {
		seen[rec.Name] = true
		why, listed := sanitizerDivergences[rec.Name]
		allowed := policyScreen(rec, 1)
		t.Run(rec.Name, func(t *testing.T) {
			for name, chunks := range frameSplits(rec.Data) {
				t.Run(name, func(t *testing.T) {
					s := relaytest.NewServer(t, quiet())
					h := newHost(t, s, 1, rec.Cols, rec.Rows)
					c, _ := dial(t, s.URL, s.ViewerToken(t, room, "ann"), attachwire.RoleViewer)
					testkit.Eventually(t, "the first snapshot", func() bool { _, _, ok := c.Mirror(); return ok })
					for _, p := range chunks {
						h.output(p)
					}
					raw, at := h.screen()
					got := waitAt(t, c, at)
					if d := screenDiff(allowed, got); d != "" {
						t.Fatalf("mirror differs from the host's screen of what the sanitizer allows: %s", d)
					}
					d := screenDiff(raw, got)
					var ds []string
					if d != "" {
						ds = []string{d}
					}
					termtest.CheckDivergence(t, ds, why, listed, "")
				})
			}
		})
	}
	termtest.CheckTableNames(t, sanitizerDivergences, seen)
}

// sanitizerDivergences are the recordings whose screen the sanitizing
// relay changes on purpose (docs/sanitizer.md): a mirror shows what the policy
// lets through, not the raw stream.
var sanitizerDivergences = map[string]string{
	"seq-decaln":       "DECALN (ESC # 8) never passes",
	"seq-decaln-home":  "DECALN (ESC # 8) never passes",
	"seq-cup-overflow": "a CUP parameter past the cap is clamped to 1000 by the sanitizer, not saturated",
}

// policyScreen is the host's screen of data as a Driver-profile sanitizer
// (the relay's) lets it through.
func policyScreen(rec termtest.Recording, epoch uint64) attachwire.Screen {
	san := sanitize.New(sanitize.Options{Profile: sanitize.Driver, Cols: rec.Cols, Rows: rec.Rows})
	e := engine.New(term.Options{Cols: rec.Cols, Rows: rec.Rows})
	defer e.Close()
	e.Write(san.Append(nil, rec.Data))
	var scr attachwire.Screen
	e.Screen(&scr)
	scr.Epoch, scr.Echo = epoch, attachwire.EchoOn
	return scr
}

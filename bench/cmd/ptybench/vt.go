package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"time"

	"github.com/ptyhost/ptyhost/internal/term"
	"github.com/ptyhost/ptyhost/internal/term/engine"
	"github.com/ptyhost/ptyhost/internal/term/xvt"
)

// vtChunk is how many bytes each Write of the emulator-alone cases feeds:
// ptyhost's largest read of the master (ptyhost.MaxOutputFrame).
const vtChunk = 32 << 10

// emulators are the terminal backends measured alone, without a PTY or a
// session: what each costs by itself on the same bytes the master delivers.
var emulators = []struct {
	name string
	new  func(term.Options) (term.Terminal, error)
}{
	{"xvt", func(o term.Options) (term.Terminal, error) { return xvt.New(o) }},
	{"engine", func(o term.Options) (term.Terminal, error) { return engine.New(o), nil }},
}

// emulatorCases returns one "vt-NAME" case per emulator: it feeds the
// workload, after the tty's ONLCR, to a fresh emulator in vtChunk writes,
// in this process, and times that.
func emulatorCases(cfg config, wl workload) []*benchCase {
	var tty []byte
	load := func(context.Context) error {
		if tty != nil {
			return nil
		}
		data, err := os.ReadFile(wl.path)
		if err != nil {
			return err
		}
		tty = bytes.ReplaceAll(data, []byte{'\n'}, []byte{'\r', '\n'})
		if len(tty) != wl.ttyBytes {
			return fmt.Errorf("vt: %d tty bytes, want %d", len(tty), wl.ttyBytes)
		}
		return nil
	}
	var cs []*benchCase
	for _, em := range emulators {
		cs = append(cs, &benchCase{
			name:  "vt-" + em.name,
			kind:  throughputKind,
			setup: load,
			run: func(context.Context) (sample, error) {
				return feedEmulator(cfg, wl, tty, em.new)
			},
		})
	}
	return cs
}

func feedEmulator(cfg config, wl workload, tty []byte, newTerm func(term.Options) (term.Terminal, error)) (sample, error) {
	cpu0 := selfCPU()
	start := time.Now()
	t, err := newTerm(term.Options{Cols: cfg.cols, Rows: cfg.rows, Scrollback: cfg.scrollback})
	if err != nil {
		return sample{}, fmt.Errorf("vt: %w", err)
	}
	for p := tty; len(p) > 0; {
		n := min(len(p), vtChunk)
		t.Write(p[:n])
		p = p[n:]
	}
	err = t.Close()
	elapsed := time.Since(start)
	cpu := selfCPU() - cpu0
	if err != nil {
		return sample{}, fmt.Errorf("vt: close: %w", err)
	}
	return throughput(wl.size, elapsed, cpu), nil
}

package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"

	"github.com/ptyhost/ptyhost/internal/streamgen"
)

// workload is the file every throughput case cats.
type workload struct {
	path string
	size int // bytes in the file
	// ttyBytes is what a reader of the PTY master receives for the file:
	// the line discipline's ONLCR turns every LF into CR LF.
	ttyBytes int
}

// prepareWorkload writes the deterministic workload file into cfg.outDir.
// The stream is generated a little long and cut after its last LF at or
// before cfg.size, so it ends on whole escape sequences and runes.
func prepareWorkload(cfg config) (workload, error) {
	if err := os.MkdirAll(cfg.outDir, 0o755); err != nil {
		return workload{}, fmt.Errorf("workload: %w", err)
	}
	gen := streamgen.Mixed
	if cfg.content == "ascii" {
		gen = streamgen.ASCII
	}
	data := gen(cfg.seed, cfg.size+64<<10)
	cut := bytes.LastIndexByte(data[:cfg.size], '\n')
	if cut < 0 {
		return workload{}, fmt.Errorf("workload: no line end in the first %d bytes", cfg.size)
	}
	data = data[:cut+1]
	name := fmt.Sprintf("stream-%s-%d-seed%d.txt", cfg.content, cfg.size, cfg.seed)
	path := filepath.Join(cfg.outDir, name)
	if err := os.WriteFile(path, data, 0o644); err != nil {
		return workload{}, fmt.Errorf("workload: %w", err)
	}
	return workload{
		path:     path,
		size:     len(data),
		ttyBytes: len(data) + bytes.Count(data, []byte{'\n'}),
	}, nil
}

package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"
)

// nodeHost runs bench/node/drain.js: node-pty spawns `cat FILE`, every chunk
// goes into a headless xterm.js Terminal, and the clock stops when xterm.js
// has parsed the last byte. drain.js times itself from just before the spawn,
// so node's own start-up and module loading are not counted; its CPU time is
// node's process.cpuUsage() over the same span (all of node's threads).
type nodeHost struct {
	node   string
	script string
}

// newNodeHost finds node and drain.js and runs drain.js --probe, which loads
// node-pty and @xterm/headless and spawns `true`. Its error is the printed
// reason for skipping this peer.
func newNodeHost(ctx context.Context, cfg config) (*nodeHost, error) {
	node, err := exec.LookPath("node")
	if err != nil {
		return nil, fmt.Errorf("node not installed: %w", err)
	}
	h := &nodeHost{node: node, script: filepath.Join(cfg.nodeDir, "drain.js")}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	out, err := exec.CommandContext(ctx, h.node, h.script, "--probe").CombinedOutput()
	if err != nil {
		return nil, fmt.Errorf("node-pty/@xterm/headless not usable (run `npm ci` in %s): %w: %s",
			cfg.nodeDir, err, firstLines(out, 3))
	}
	return h, nil
}

func (h *nodeHost) run(ctx context.Context, cfg config, wl workload) (sample, error) {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, h.node, h.script,
		"--file", wl.path, "--cols", strconv.Itoa(cfg.cols), "--rows", strconv.Itoa(cfg.rows),
		"--scrollback", strconv.Itoa(cfg.scrollback), "--expect", strconv.Itoa(wl.ttyBytes))
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return sample{}, fmt.Errorf("node: %w: %s", err, firstLines(stderr.Bytes(), 3))
	}
	var r struct {
		ElapsedNS int64 `json:"elapsed_ns"`
		CPUNS     int64 `json:"cpu_ns"`
		Bytes     int   `json:"bytes"`
	}
	if err := json.Unmarshal(out, &r); err != nil {
		return sample{}, fmt.Errorf("node: bad result %q: %w", out, err)
	}
	if r.Bytes != wl.ttyBytes {
		return sample{}, fmt.Errorf("node: read %d bytes, want %d", r.Bytes, wl.ttyBytes)
	}
	return throughput(wl.size, time.Duration(r.ElapsedNS), time.Duration(r.CPUNS)), nil
}

// firstLines returns at most n lines of b, trimmed, for error messages.
func firstLines(b []byte, n int) string {
	lines := bytes.SplitN(bytes.TrimSpace(b), []byte{'\n'}, n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return string(bytes.Join(lines, []byte(" | ")))
}

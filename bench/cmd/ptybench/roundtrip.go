package main

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/creack/pty"
)

// rtWarmup round trips are made and dropped before each latency sample.
const rtWarmup = 100

// echoCommand returns the command line of the raw echo child: this binary
// with echoChildArg.
func echoCommand() ([]string, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, fmt.Errorf("round trip: %w", err)
	}
	return []string{self, echoChildArg}, nil
}

// bareRoundTrip measures keystroke latency on a bare PTY: write one byte to
// the master, read until it comes back from the raw echo child.
func bareRoundTrip(ctx context.Context, cfg config) (sample, error) {
	argv, err := echoCommand()
	if err != nil {
		return sample{}, err
	}
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	cmd := exec.Command(argv[0], argv[1:]...)
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(cfg.cols), Rows: uint16(cfg.rows)})
	if err != nil {
		return sample{}, fmt.Errorf("round trip: start: %w", err)
	}
	// The watchdog: a stuck child is killed, which ends any blocked Read.
	stopWatch := context.AfterFunc(ctx, func() { _ = cmd.Process.Kill() })
	defer func() {
		stopWatch()
		_, _ = f.Write([]byte{echoQuit})
		_ = cmd.Wait()
		f.Close()
	}()
	buf := make([]byte, 256)
	var seen []byte
	for !bytes.Contains(seen, []byte(echoReady)) {
		n, err := f.Read(buf)
		if err != nil {
			return sample{}, fmt.Errorf("round trip: waiting for the echo child: %w", err)
		}
		seen = append(seen, buf[:n]...)
	}
	lat := make([]time.Duration, 0, cfg.rtIters)
	key := []byte{'x'}
	for i := 0; i < rtWarmup+cfg.rtIters; i++ {
		t0 := time.Now()
		if _, err := f.Write(key); err != nil {
			return sample{}, fmt.Errorf("round trip: write: %w", err)
		}
		if err := readByte(f, buf, 'x'); err != nil {
			return sample{}, err
		}
		if i >= rtWarmup {
			lat = append(lat, time.Since(t0))
		}
	}
	return latencySample(lat), nil
}

// readByte reads f until it returns a chunk holding want.
func readByte(f *os.File, buf []byte, want byte) error {
	for {
		n, err := f.Read(buf)
		if bytes.IndexByte(buf[:n], want) >= 0 {
			return nil
		}
		if err != nil {
			return fmt.Errorf("round trip: read: %w", err)
		}
	}
}

package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"syscall"
	"time"

	"github.com/creack/pty"
)

// bareCat is the physical limit: creack/pty starts `cat FILE` and one
// goroutine reads the master into a reused buffer until EOF, with no
// terminal emulation. The clock runs from before the spawn to the reaped
// child, as it does for ptyhost.
func bareCat(ctx context.Context, cfg config, wl workload) (sample, error) {
	cmd := exec.CommandContext(ctx, "cat", wl.path)
	cpu0 := selfCPU()
	start := time.Now()
	f, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: uint16(cfg.cols), Rows: uint16(cfg.rows)})
	if err != nil {
		return sample{}, fmt.Errorf("bare: start: %w", err)
	}
	n, rerr := drainMaster(f)
	werr := cmd.Wait()
	elapsed := time.Since(start)
	cpu := selfCPU() - cpu0
	f.Close()
	switch {
	case rerr != nil:
		return sample{}, fmt.Errorf("bare: read: %w", rerr)
	case werr != nil:
		return sample{}, fmt.Errorf("bare: cat: %w", werr)
	case n != int64(wl.ttyBytes):
		return sample{}, fmt.Errorf("bare: read %d bytes, want %d", n, wl.ttyBytes)
	}
	return throughput(wl.size, elapsed, cpu), nil
}

// drainMaster reads f to its end. Linux reports the end of a PTY (the last
// slave fd closed) as EIO on the master, after all buffered output.
func drainMaster(f *os.File) (int64, error) {
	buf := make([]byte, 32<<10)
	var n int64
	for {
		k, err := f.Read(buf)
		n += int64(k)
		if err != nil {
			if errors.Is(err, io.EOF) || errors.Is(err, syscall.EIO) {
				return n, nil
			}
			return n, err
		}
	}
}

// throughput turns bytes, elapsed wall-clock time and the host process's
// CPU time into a sample.
func throughput(bytes int, elapsed, cpu time.Duration) sample {
	mib := float64(bytes) / (1 << 20)
	s := sample{value: mib / elapsed.Seconds()}
	if cpu > 0 {
		s.cpu = mib / cpu.Seconds()
	}
	return s
}

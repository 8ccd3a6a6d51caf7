// Command cpuratio measures issue 17's goal the way the issue states it:
// the CPU a host spends on a 16 MiB mixed stream against a bare PTY
// reader's, each a process of its own timed as /usr/bin/time times it
// (user+system of the process and of what it waited for, so `cat` counts
// on both sides), alternating in swapping order, median of the rounds.
//
//	go run ./internal/cpuratio            # 10 rounds
//	go run ./internal/cpuratio -rounds 20
//	go run ./internal/cpuratio -warm      # steady state (see below)
//
// The host is the library as an embedder runs it (Spawn, one subscriber
// reading every frame, Stop); the bare reader is creack/pty's blocking
// read loop. Both run `cat FILE` at 120×40. The figures are in
// docs/performance.md, "CPU per byte as the issue measures it".
//
// A fresh host spends its first 16 MiB growing its heap to hold the ring
// (8 MiB by default, twice that with the garbage collector's headroom):
// nearly every payload lands on a page the kernel has to fault in and
// clear, where the bare reader reuses one buffer. With -warm each process
// runs its pipeline twice and reports only the second run, measured from
// inside with getrusage (its own time and its reaped children's), as a
// host that has been running for a while pays.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"syscall"
	"time"

	"github.com/creack/pty"
	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/internal/streamgen"
)

func main() {
	if len(os.Args) == 4 && (os.Args[1] == "-bare" || os.Args[1] == "-host") {
		if err := child(os.Args[1], os.Args[2], os.Args[3] == "warm"); err != nil {
			fmt.Fprintln(os.Stderr, "cpuratio:", err)
			os.Exit(1)
		}
		return
	}
	rounds := flag.Int("rounds", 10, "pairs of runs")
	size := flag.Int("size", 16<<20, "bytes of the mixed stream")
	warm := flag.Bool("warm", false, "time a second run in each process (steady state)")
	flag.Parse()
	if err := measure(*rounds, *size, *warm); err != nil {
		fmt.Fprintln(os.Stderr, "cpuratio:", err)
		os.Exit(1)
	}
}

// measure runs the pairs and prints each run and the medians.
func measure(rounds, size int, warm bool) error {
	dir, err := os.MkdirTemp("", "cpuratio")
	if err != nil {
		return err
	}
	defer os.RemoveAll(dir)
	path := filepath.Join(dir, "mixed")
	if err := os.WriteFile(path, streamgen.Mixed(1, size), 0o644); err != nil {
		return err
	}
	self, err := os.Executable()
	if err != nil {
		return err
	}
	var bare, host, ratios []time.Duration
	for i := range rounds {
		modes := []string{"-bare", "-host"}
		if i%2 == 1 {
			modes[0], modes[1] = modes[1], modes[0]
		}
		var got [2]time.Duration
		for _, m := range modes {
			d, err := timed(self, m, path, warm)
			if err != nil {
				return err
			}
			if m == "-bare" {
				got[0] = d
			} else {
				got[1] = d
			}
		}
		bare, host = append(bare, got[0]), append(host, got[1])
		ratios = append(ratios, time.Duration(float64(got[1])/float64(got[0])*1000))
		fmt.Printf("round %2d: bare %6.1f ms  host %6.1f ms  host/bare %.3f\n",
			i+1, ms(got[0]), ms(got[1]), float64(got[1])/float64(got[0]))
	}
	mb, mh := median(bare), median(host)
	fmt.Printf("median: bare %.1f ms, host %.1f ms, ratio of medians %.3f, median of ratios %.3f (goal ≤ 1.3)\n",
		ms(mb), ms(mh), float64(mh)/float64(mb), float64(median(ratios))/1000)
	return nil
}

// timed runs this program in mode m and returns the user+system time of
// it and its waited-for children, as wait4 reports it; with warm, what
// the process measured of its second run.
func timed(self, m, path string, warm bool) (time.Duration, error) {
	arg := "cold"
	if warm {
		arg = "warm"
	}
	cmd := exec.Command(self, m, path, arg)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return 0, fmt.Errorf("%s run: %w", m, err)
	}
	if warm {
		var ns int64
		if _, err := fmt.Sscan(string(out), &ns); err != nil {
			return 0, fmt.Errorf("%s run: its report %q: %w", m, out, err)
		}
		return time.Duration(ns), nil
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, fmt.Errorf("%s run: no rusage on this platform", m)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano()), nil
}

// child runs the pipeline of mode once, or with warm twice, printing the
// second run's CPU (this process's and its reaped children's) in ns.
func child(mode, path string, warm bool) error {
	run := runBare
	if mode == "-host" {
		run = runHost
	}
	if !warm {
		return run(path)
	}
	if err := run(path); err != nil {
		return err
	}
	before := usage()
	if err := run(path); err != nil {
		return err
	}
	fmt.Println(int64(usage() - before))
	return nil
}

// usage is the user+system time of this process and its reaped children.
func usage() time.Duration {
	var self, kids syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	return time.Duration(self.Utime.Nano() + self.Stime.Nano() + kids.Utime.Nano() + kids.Stime.Nano())
}

// runBare reads `cat path` through a PTY to its end.
func runBare(path string) error {
	cmd := exec.Command("cat", path)
	master, err := pty.StartWithSize(cmd, &pty.Winsize{Cols: 120, Rows: 40})
	if err != nil {
		return err
	}
	buf := make([]byte, ptyhost.MaxOutputFrame)
	for {
		if _, err := master.Read(buf); err != nil {
			break // EIO once cat has exited and its output is read
		}
	}
	cmd.Wait()
	return master.Close()
}

// runHost runs `cat path` in a session and reads every frame.
func runHost(path string) error {
	s, err := ptyhost.Spawn(ptyhost.Spec{Command: []string{"cat", path}, Cols: 120, Rows: 40})
	if err != nil {
		return err
	}
	defer s.Stop(context.Background())
	sub, err := s.Subscribe(0)
	if err != nil {
		return err
	}
	for {
		_, err := sub.Next(context.Background())
		if errors.Is(err, io.EOF) {
			return nil // after Exit: every frame was read
		}
		if err != nil {
			return err // a subscriber that fell behind would read less
		}
	}
}

func median(d []time.Duration) time.Duration {
	d = slices.Clone(d)
	slices.Sort(d)
	return d[len(d)/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

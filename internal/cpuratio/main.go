// Command cpuratio measures the CPU a host spends on a 16 MiB mixed
// stream against a bare PTY reader's (the target: at most 1.3 times),
// each a process of its own timed as /usr/bin/time times it (user+system
// of the process and of what it waited for, so `cat` counts on both
// sides), alternating in swapping order, median of the rounds.
//
//	go run ./internal/cpuratio            # 10 rounds
//	go run ./internal/cpuratio -rounds 20
//	go run ./internal/cpuratio -warm      # steady state (see below)
//	go run ./internal/cpuratio -cli ./ptyhost  # also `ptyhost exec`
//
// The host is the library as an embedder runs it (Spawn, one subscriber
// reading every frame, Stop); the bare reader is creack/pty's blocking
// read loop. Both run `cat FILE` at 120×40. With -cli, each round also
// times that ptyhost binary's `exec --size 120x40 -- cat FILE` (its
// screen print included), which is what a user of the command pays. On
// Linux it also prints the CPU time the hypervisor gave other guests
// during the batch (steal): on a shared VM a batch with much of it is
// a noisy one, whatever its ratio. The figures are in
// docs/performance.md, "CPU per byte against a bare reader".
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
	"strconv"
	"strings"
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
	rounds := flag.Int("rounds", 10, "rounds, each running every contender once")
	size := flag.Int("size", 16<<20, "bytes of the mixed stream")
	warm := flag.Bool("warm", false, "time a second run in each process (steady state)")
	cli := flag.String("cli", "", "a ptyhost binary whose exec to time as well (not with -warm)")
	flag.Parse()
	if *cli != "" && *warm {
		fmt.Fprintln(os.Stderr, "cpuratio: -cli times whole processes: it does not go with -warm")
		os.Exit(2)
	}
	if err := measure(*rounds, *size, *warm, *cli); err != nil {
		fmt.Fprintln(os.Stderr, "cpuratio:", err)
		os.Exit(1)
	}
}

// measure runs the rounds and prints each run and the medians. Each round
// runs every contender once, the order rotating from round to round so
// that none is always first after a pause or last before one.
func measure(rounds, size int, warm bool, cli string) error {
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
	arg := "cold"
	if warm {
		arg = "warm"
	}
	runs := []contender{
		{name: "bare", argv: []string{self, "-bare", path, arg}},
		{name: "host", argv: []string{self, "-host", path, arg}},
	}
	if cli != "" {
		runs = append(runs, contender{name: "exec", argv: []string{cli, "exec", "--size", "120x40", "--", "cat", path}})
	}
	steal0, stealOK := stolen()
	for i := range rounds {
		line := fmt.Sprintf("round %2d:", i+1)
		for k := range runs {
			c := &runs[(i+k)%len(runs)]
			d, err := timed(c.argv, warm)
			if err != nil {
				return fmt.Errorf("%s run: %w", c.name, err)
			}
			c.cpu = append(c.cpu, d)
		}
		for _, c := range runs {
			line += fmt.Sprintf("  %s %6.1f ms", c.name, ms(c.cpu[i]))
		}
		for _, c := range runs[1:] {
			line += fmt.Sprintf("  %s/bare %.3f", c.name, float64(c.cpu[i])/float64(runs[0].cpu[i]))
		}
		fmt.Println(line)
	}
	if steal1, ok := stolen(); ok && stealOK {
		// On a VM the host machine's other guests take CPU time from
		// this one in bursts; a batch with much of it is a noisy one.
		fmt.Printf("steal: %.0f ms of this VM's CPU time went to other guests during the batch\n", ms(steal1-steal0))
	}
	bare := median(runs[0].cpu)
	for _, c := range runs[1:] {
		ratios := make([]time.Duration, rounds)
		for i := range rounds {
			ratios[i] = time.Duration(float64(c.cpu[i]) / float64(runs[0].cpu[i]) * 1000)
		}
		m := median(c.cpu)
		fmt.Printf("median: bare %.1f ms, %s %.1f ms, ratio of medians %.3f, median of ratios %.3f (goal ≤ 1.3)\n",
			ms(bare), c.name, ms(m), float64(m)/float64(bare), float64(median(ratios))/1000)
	}
	return nil
}

// stolen returns the CPU time the hypervisor gave other guests, summed
// over this machine's CPUs (/proc/stat's steal column); ok is false where
// there is no such file.
func stolen() (time.Duration, bool) {
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return 0, false
	}
	line, _, _ := strings.Cut(string(b), "\n")
	f := strings.Fields(line)
	if len(f) < 9 || f[0] != "cpu" {
		return 0, false
	}
	ticks, err := strconv.ParseInt(f[8], 10, 64)
	if err != nil {
		return 0, false
	}
	// USER_HZ, which /proc/stat counts in, is 100 on every Linux ABI.
	return time.Duration(ticks) * 10 * time.Millisecond, true
}

// contender is one program measured in every round, and its CPU times.
type contender struct {
	name string
	argv []string
	cpu  []time.Duration
}

// timed runs argv and returns the user+system time of it and its
// waited-for children, as wait4 reports it; with warm, what the process
// measured of its second run (printed in ns on its stdout).
func timed(argv []string, warm bool) (time.Duration, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return 0, err
	}
	if warm {
		var ns int64
		if _, err := fmt.Sscan(string(out), &ns); err != nil {
			return 0, fmt.Errorf("its report %q: %w", out, err)
		}
		return time.Duration(ns), nil
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return 0, errors.New("no rusage on this platform")
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

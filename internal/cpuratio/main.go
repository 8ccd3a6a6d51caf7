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
//
// Beside the times it reports, from the same rusage, the page faults
// (minor and major) and the context switches (voluntary and not) of each
// side per 16 MiB: on a paravirtualized VM each fault and each switch is
// an exit to the hypervisor, so these counts say where a ratio comes from
// better than the times, which the load moves.
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
	per16 := float64(16<<20) / float64(size)
	steal0, stealOK := stolen()
	for i := range rounds {
		line := fmt.Sprintf("round %2d:", i+1)
		for k := range runs {
			c := &runs[(i+k)%len(runs)]
			u, err := timed(c.argv, warm)
			if err != nil {
				return fmt.Errorf("%s run: %w", c.name, err)
			}
			c.runs = append(c.runs, u)
		}
		for _, c := range runs {
			u := c.runs[i]
			line += fmt.Sprintf("  %s %6.1f ms %5.0f pf %6.0f cs", c.name, ms(u.cpu),
				float64(u.faults())*per16, float64(u.switches())*per16)
		}
		for _, c := range runs[1:] {
			line += fmt.Sprintf("  %s/bare %.3f", c.name, float64(c.runs[i].cpu)/float64(runs[0].runs[i].cpu))
		}
		fmt.Println(line)
	}
	if steal1, ok := stolen(); ok && stealOK {
		// On a VM the host machine's other guests take CPU time from
		// this one in bursts; a batch with much of it is a noisy one.
		fmt.Printf("steal: %.0f ms of this VM's CPU time went to other guests during the batch\n", ms(steal1-steal0))
	}
	for _, c := range runs {
		fmt.Printf("%s per 16 MiB, median [range]: cpu %s ms, page faults %s (major %s), context switches %s (voluntary %s, involuntary %s)\n",
			c.name,
			spread(c.runs, func(u usage) float64 { return ms(u.cpu) }),
			spread(c.runs, func(u usage) float64 { return float64(u.faults()) * per16 }),
			spread(c.runs, func(u usage) float64 { return float64(u.majflt) * per16 }),
			spread(c.runs, func(u usage) float64 { return float64(u.switches()) * per16 }),
			spread(c.runs, func(u usage) float64 { return float64(u.nvcsw) * per16 }),
			spread(c.runs, func(u usage) float64 { return float64(u.nivcsw) * per16 }))
	}
	bare := runs[0]
	for _, c := range runs[1:] {
		ratio := func(f func(usage) float64) (float64, string) {
			r := make([]float64, rounds)
			for i := range rounds {
				r[i] = f(c.runs[i]) / max(f(bare.runs[i]), 1e-9)
			}
			return medianOf(func(i int) float64 { return f(c.runs[i]) }, rounds) /
				max(medianOf(func(i int) float64 { return f(bare.runs[i]) }, rounds), 1e-9), spreadOf(r)
		}
		cpuM, cpuR := ratio(func(u usage) float64 { return float64(u.cpu) })
		pfM, pfR := ratio(func(u usage) float64 { return float64(u.faults()) })
		csM, csR := ratio(func(u usage) float64 { return float64(u.switches()) })
		fmt.Printf("median: bare %.1f ms, %s %.1f ms, ratio of medians %.3f, median [range] of ratios %s (goal ≤ 1.3)\n",
			ms(median(bare.cpus())), c.name, ms(median(c.cpus())), cpuM, cpuR)
		fmt.Printf("%s/bare page faults: ratio of medians %.2f, of rounds %s (goal ≤ 2); context switches: %.2f, %s\n",
			c.name, pfM, pfR, csM, csR)
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

// contender is one program measured in every round, and what each of its
// runs cost.
type contender struct {
	name string
	argv []string
	runs []usage
}

func (c contender) cpus() []time.Duration {
	d := make([]time.Duration, len(c.runs))
	for i, u := range c.runs {
		d[i] = u.cpu
	}
	return d
}

// usage is what one run cost: user+system CPU, page faults and context
// switches, of the process and the children it waited for.
type usage struct {
	cpu                           time.Duration
	minflt, majflt, nvcsw, nivcsw int64
}

func (u usage) faults() int64   { return u.minflt + u.majflt }
func (u usage) switches() int64 { return u.nvcsw + u.nivcsw }

func (u usage) sub(v usage) usage {
	return usage{u.cpu - v.cpu, u.minflt - v.minflt, u.majflt - v.majflt, u.nvcsw - v.nvcsw, u.nivcsw - v.nivcsw}
}

func fromRusage(ru *syscall.Rusage) usage {
	return usage{
		cpu:    time.Duration(ru.Utime.Nano() + ru.Stime.Nano()),
		minflt: ru.Minflt, majflt: ru.Majflt, nvcsw: ru.Nvcsw, nivcsw: ru.Nivcsw,
	}
}

// timed runs argv and returns what it and its waited-for children cost,
// as wait4 reports it; with warm, what the process measured of its second
// run (printed on its stdout as the fields of usage).
func timed(argv []string, warm bool) (usage, error) {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return usage{}, err
	}
	if warm {
		var u usage
		var ns int64
		if _, err := fmt.Sscan(string(out), &ns, &u.minflt, &u.majflt, &u.nvcsw, &u.nivcsw); err != nil {
			return usage{}, fmt.Errorf("its report %q: %w", out, err)
		}
		u.cpu = time.Duration(ns)
		return u, nil
	}
	ru, ok := cmd.ProcessState.SysUsage().(*syscall.Rusage)
	if !ok {
		return usage{}, errors.New("no rusage on this platform")
	}
	return fromRusage(ru), nil
}

// child runs the pipeline of mode once, or with warm twice, printing what
// the second run cost (this process and its reaped children).
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
	before := selfUsage()
	if err := run(path); err != nil {
		return err
	}
	u := selfUsage().sub(before)
	fmt.Println(int64(u.cpu), u.minflt, u.majflt, u.nvcsw, u.nivcsw)
	return nil
}

// selfUsage is what this process and its reaped children have cost so far.
func selfUsage() usage {
	var self, kids syscall.Rusage
	syscall.Getrusage(syscall.RUSAGE_SELF, &self)
	syscall.Getrusage(syscall.RUSAGE_CHILDREN, &kids)
	a, b := fromRusage(&self), fromRusage(&kids)
	return usage{a.cpu + b.cpu, a.minflt + b.minflt, a.majflt + b.majflt, a.nvcsw + b.nvcsw, a.nivcsw + b.nivcsw}
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

// spread formats the median and range of f over runs.
func spread(runs []usage, f func(usage) float64) string {
	v := make([]float64, len(runs))
	for i, u := range runs {
		v[i] = f(u)
	}
	return spreadOf(v)
}

func spreadOf(v []float64) string {
	v = slices.Clone(v)
	slices.Sort(v)
	m := v[len(v)/2]
	if m >= 100 {
		return fmt.Sprintf("%.0f [%.0f–%.0f]", m, v[0], v[len(v)-1])
	}
	return fmt.Sprintf("%.3g [%.3g–%.3g]", m, v[0], v[len(v)-1])
}

func medianOf(f func(int) float64, n int) float64 {
	v := make([]float64, n)
	for i := range n {
		v[i] = f(i)
	}
	slices.Sort(v)
	return v[n/2]
}

func ms(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }

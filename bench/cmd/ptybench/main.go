// Command ptybench measures ptyhost side by side with the bare PTY limit and
// with the hosts users would pick instead (tmux, node-pty + @xterm/headless),
// pairwise interleaved, and prints one table of medians, ranges and ratios to
// the bare reader. bench/run.sh is the supported way to run it; see
// bench/README.md and docs/performance.md.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
)

func main() {
	if len(os.Args) > 1 && os.Args[1] == echoChildArg {
		os.Exit(runEchoChild(os.Stdin, os.Stdout))
	}
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	err := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(exitCode(err, os.Stderr))
}

// exitCode maps run's error to the process status in one place: 0 for
// success and -help, 2 for usage errors, 1 for everything else.
func exitCode(err error, stderr io.Writer) int {
	var ue usageError
	switch {
	case err == nil, errors.Is(err, flag.ErrHelp):
		return 0
	case errors.As(err, &ue):
		fmt.Fprintln(stderr, "ptybench:", err)
		return 2
	default:
		fmt.Fprintln(stderr, "ptybench:", err)
		return 1
	}
}

// run parses args, prepares the workload, runs every selected case and
// prints the table to stdout. Progress goes to stderr.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) error {
	cfg, err := parseConfig(args, stderr)
	if err != nil {
		return err
	}
	stopProfile, err := startProfile(cfg.cpuProfile)
	if err != nil {
		return err
	}
	defer stopProfile()

	wl, err := prepareWorkload(cfg)
	if err != nil {
		return err
	}
	fmt.Fprintf(stderr, "ptybench: workload %s: %d bytes (%s, seed %d), %d bytes through the tty\n",
		wl.path, wl.size, cfg.content, cfg.seed, wl.ttyBytes)

	cases := buildCases(cfg, wl)
	res, err := schedule(ctx, cfg, cases, stderr)
	if err != nil {
		return err
	}
	printTable(stdout, cfg, wl, res)
	return nil
}

package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"os"
	"os/signal"
	"runtime"
	"sync"
	"sync/atomic"
	"syscall"

	"github.com/ptyhost/ptyhost/internal/version"
)

// run is the whole CLI: it dispatches args to a command and returns an
// error that exitCode turns into the process's exit status.
func run(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) error {
	if len(args) == 0 {
		io.WriteString(stderr, topHelp)
		return usagef("", "missing command")
	}
	ctx, stop := catchSignals(ctx)
	defer stop()
	name, rest := args[0], args[1:]
	switch name {
	case "--version":
		name = "version"
	case "help", "-h", "-help", "--help":
		return helpCmd(rest, stdout)
	}
	c, ok := commands[name]
	if !ok {
		return usagef("", "unknown command %q", name)
	}
	err := c.run(ctx, rest, stdin, stdout)
	if errors.Is(err, flag.ErrHelp) {
		// Every command's -h and --help end here, as its flag parsing
		// reports them.
		_, err = io.WriteString(stdout, c.help)
	}
	return err
}

// command is a subcommand: what runs it and its --help text.
type command struct {
	run  func(ctx context.Context, args []string, stdin io.Reader, stdout io.Writer) error
	help string
}

// commands is the command table: a new command is one more entry. help
// is dispatched by run itself, since it reads this table.
var commands = map[string]command{
	"run":     {runCmd, withLimits(runHelp)},
	"exec":    {execCmd, withLimits(execHelp)},
	"play":    {playCmd, withLimits(playHelp)},
	"version": {versionCmd, versionHelp},
	"keygen":  {keygenCmd, keygenHelp},
	"verify":  {verifyCmd, verifyHelp},
	"token":   {tokenCmd, tokenHelp},
	"relay":   {relayCmd, relayHelp},
	"attach":  {attachCmd, attachHelp},
	"share":   {shareCmd, shareHelp},
	"mcp":     {mcpCmd, mcpHelp},

	"shell-integration": {shellIntegrationCmd, shellIntegrationHelp},
}

// reloadOnHUP, when a command sets it, is what SIGHUP does instead of
// stopping the command: a relay in issuer mode rereads its users.
var reloadOnHUP atomic.Pointer[func()]

// catchSignals returns a context that is cancelled, with a *signalError as
// its cause, when SIGINT, SIGTERM or SIGHUP arrives. stop undoes the
// registration and joins the goroutine.
func catchSignals(parent context.Context) (context.Context, func()) {
	ctx, cancel := context.WithCancelCause(parent)
	ch := make(chan os.Signal, 1)
	signal.Notify(ch, syscall.SIGINT, syscall.SIGTERM, syscall.SIGHUP)
	var wg sync.WaitGroup
	wg.Go(func() {
		for {
			select {
			case s := <-ch:
				if f := reloadOnHUP.Load(); s == syscall.SIGHUP && f != nil {
					(*f)()
					continue
				}
				// A second signal gets the default action: a user who asks
				// twice is not kept waiting for a clean stop.
				signal.Stop(ch)
				cancel(&signalError{sig: s.(syscall.Signal)})
				return
			case <-ctx.Done():
				return
			}
		}
	})
	return ctx, func() {
		signal.Stop(ch)
		cancel(nil)
		wg.Wait()
	}
}

// interrupted returns the signal that cancelled ctx as an error, or
// ctx's cause.
func interrupted(ctx context.Context) error {
	var se *signalError
	if cause := context.Cause(ctx); errors.As(cause, &se) {
		return se
	} else if cause != nil {
		return cause
	}
	return ctx.Err()
}

func versionCmd(_ context.Context, args []string, _ io.Reader, stdout io.Writer) error {
	if len(args) > 0 && (args[0] == "-h" || args[0] == "--help") {
		return flag.ErrHelp
	}
	if len(args) > 0 {
		return usagef("version", "unexpected argument %q", args[0])
	}
	fmt.Fprintf(stdout, "ptyhost %s\n", buildVersion())
	return nil
}

// buildVersion returns ptyhost's version (the one the host's XTVERSION
// answer carries) plus the Go version.
func buildVersion() string {
	return version.String() + " (" + runtime.Version() + ")"
}

// helpCmd prints the top help, a command's help, or its own.
func helpCmd(args []string, stdout io.Writer) error {
	text := topHelp
	switch {
	case len(args) > 1:
		return usagef("help", "one command at a time, got %d", len(args))
	case len(args) == 0:
	case args[0] == "help" || args[0] == "-h" || args[0] == "-help" || args[0] == "--help":
		text = helpHelp
	default:
		c, ok := commands[args[0]]
		if !ok {
			return usagef("help", "unknown command %q", args[0])
		}
		text = c.help
	}
	_, err := io.WriteString(stdout, text)
	return err
}

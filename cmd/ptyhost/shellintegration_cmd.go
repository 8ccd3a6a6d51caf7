package main

import (
	"context"
	"errors"
	"flag"
	"io"

	"github.com/ptyhost/ptyhost/internal/shellmark"
)

const shellIntegrationHelp = `usage: ptyhost shell-integration bash|zsh|fish

Prints the shell code that marks each prompt and command for ptyhost (the
OSC 133 and OSC 633 sequences terminals use for shell integration): a
session then publishes a command mark at each prompt, at each command's
start (with its command line) and at its end (with its exit status), and
viewers list commands, jump between them and show how each ended. The
marks are stripped before any viewer's terminal. Load it from the
shell's startup file:

  bash  ~/.bashrc                    eval "$(ptyhost shell-integration bash)"
  zsh   ~/.zshrc                     eval "$(ptyhost shell-integration zsh)"
  fish  ~/.config/fish/config.fish   ptyhost shell-integration fish | source

It does nothing in a shell that is not interactive, and loading it twice
is harmless.
`

func shellIntegrationCmd(_ context.Context, args []string, _ io.Reader, stdout io.Writer) error {
	rest, _, err := parseArgs(newFlagSet("shell-integration"), args, true)
	switch {
	case errors.Is(err, flag.ErrHelp):
		return err
	case err != nil:
		return &usageError{cmd: "shell-integration", err: err}
	case len(rest) != 1:
		return usagef("shell-integration", "name one shell: bash, zsh or fish")
	}
	snippet, err := shellmark.Snippet(rest[0])
	if err != nil {
		return usagef("shell-integration", "no snippet for %q: bash, zsh or fish", rest[0])
	}
	_, err = io.WriteString(stdout, snippet)
	return err
}

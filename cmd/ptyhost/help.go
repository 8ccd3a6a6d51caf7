package main

import (
	"fmt"
	"strings"

	"github.com/ptyhost/ptyhost"
)

// withLimits fills the host's limits into a help text, so that --help
// states the limits the commands enforce.
func withLimits(help string) string {
	return strings.NewReplacer(
		"{maxsize}", fmt.Sprintf("%dx%d", ptyhost.MaxCols, ptyhost.MaxRows),
		"{maxscrollback}", fmt.Sprint(ptyhost.MaxScrollback),
		"{maxring}", fmt.Sprintf("%d MiB", ptyhost.MaxRingBytes>>20),
	).Replace(help)
}

const topHelp = `usage: ptyhost <command> [flags] [-- CMD [ARGS...]]

ptyhost runs a program under a pseudo-terminal it hosts, with a headless
terminal emulator that always knows what the screen looks like.

Commands:
  run      run CMD attached to this terminal (interactive)
  exec     run CMD headless, optionally type into it, print its final screen
  play     replay an asciicast (v2 or v3), or print its final screen
  keygen   write an Ed25519 key pair for attach tokens
  token    mint an attach token for a relay
  relay    run the reference relay hosts and viewers meet at
  attach   watch or drive a session shared through a relay
  share    run CMD attached to this terminal and share it through a relay
  shell-integration
           print the shell code that marks prompts and commands
  version  print the version
  help     print help for a command: ptyhost help exec

Examples:
  ptyhost exec -- ls --color=always
  ptyhost exec --input 'print(6*7)\r' --wait-for '^42' -- python3
  ptyhost run --record session.cast -- bash
  ptyhost play --screen session.cast

Exit status: the command's own status (128 + signal number when a signal
killed it); 2 for a usage error; 124 when exec --timeout expired; 125 when
ptyhost itself failed; 126 when CMD is not executable; 127 when CMD is not
found; 128 + signal number when ptyhost was interrupted (except relay, a
server: it drains and exits 0).
`

const runHelp = `usage: ptyhost run [flags] -- CMD [ARGS...]

Runs CMD under a new pseudo-terminal and attaches this terminal to it as the
driver: keys go to CMD, its screen is painted here (sanitized: nothing CMD
prints can make this terminal answer, copy or get stuck), and resizing this
window resizes CMD's terminal. When CMD exits, the terminal's modes are
reset (mouse, bracketed paste, alternate screen, cursor, colors) and
ptyhost exits with CMD's status. Needs a terminal on stdin; for scripts and
CI use 'ptyhost exec'.

Flags:
  --size COLSxROWS   a fixed size for CMD's terminal, at most {maxsize}
                     (default: this terminal's size, following its
                     resizes)
  --record FILE      also write an asciicast of the session to FILE: output,
                     resizes, command marks and the exit status
  --record-format F  v3 (default; asciinema 3) or v2 (asciinema 2.x)
  --record-input     also record what is typed (off: input holds passwords)
  --scrollback N     lines of history the host keeps (default 200, at
                     most {maxscrollback}; 0 keeps none)
  --ring BYTES       bytes of frames the host buffers (default 8 MiB, at
                     most {maxring})
  --backend NAME     the host's headless terminal: default (engine),
                     engine (ptyhost's own) or xvt (charmbracelet/x/vt,
                     much slower; only in builds with -tags ptyhost_xvt)
`

const execHelp = `usage: ptyhost exec [flags] -- CMD [ARGS...]

Runs CMD headless under a pseudo-terminal (80x24 unless --size), writes the
scripted input, waits, then prints CMD's screen to stdout.

exec stops waiting when the first of these happens:
  - CMD exits: the screen is printed and exec exits with CMD's status;
  - the wait condition holds (--wait-for matched, and with --quiet-for the
    output has then been quiet that long; or --quiet-for alone): the screen
    is printed, CMD is stopped (SIGTERM, then SIGKILL) and exec exits 0;
  - --timeout expires: the screen is printed, CMD is stopped, exec exits
    124;
  - exec is interrupted (Ctrl-C, SIGTERM, SIGHUP): the screen is printed,
    CMD is stopped, exec exits 128 + the signal's number (130 for Ctrl-C).
Without --timeout there is no time limit: exec waits for CMD as long as
it takes.
If CMD exits before --wait-for matched, exec prints the screen, says so and
exits with CMD's status, or 1 if that was 0.

Flags:
  --size COLSxROWS     terminal size (default 80x24, at most {maxsize})
  --input TEXT         type TEXT once CMD has started; escapes: \r (Enter),
                       \n, \t, \e (Esc), \a, \b, \\ and \xNN (any byte)
  --input-file FILE    type the bytes of FILE (after --input), as they are
  --wait-for REGEX     wait until the screen text matches REGEX (Go syntax,
                       matched against the visible lines joined by \n;
                       ^ and $ match at the start and end of each line)
  --quiet-for DURATION wait until CMD has printed something and then
                       nothing for DURATION
  --timeout DURATION   give up after DURATION (default: no limit)
  --format FORMAT      text (trimmed lines, default), ansi (the lines with
                       their colors, safe to cat: no cursor or mode changes)
                       or json (the screen model, cursor and modes included)
  --frames FILE        write the session's attachwire frames file to FILE
                       (an existing file is replaced only when exec ends;
                       a FIFO or /dev/stdout is written in place)
  --record FILE        write an asciicast of the session to FILE
  --record-format F    v3 (default; asciinema 3) or v2 (asciinema 2.x)
  --record-input       also record what is typed (off: input holds passwords)
  --backend NAME       the host's headless terminal: default (engine),
                       engine (ptyhost's own) or xvt (charmbracelet/x/vt,
                       much slower; only in builds with -tags ptyhost_xvt)

Durations use Go syntax: 500ms, 2s, 1m30s.
`

const playHelp = `usage: ptyhost play [flags] FILE.cast

Replays an asciicast v2 or v3 recording to this terminal at its recorded timing,
through a sanitizer (a hostile recording cannot make this terminal answer,
copy or get stuck). FILE "-" reads stdin. Interrupt with Ctrl-C. Casts
larger than {maxsize} (the largest terminal ptyhost runs) are refused.

Flags:
  --speed X            play X times faster (default 1; 0.5 is half speed;
                       0.001 to 1000)
  --idle-limit DURATION
                       cap every pause at DURATION (default: the cast's
                       idle_time_limit, if any)
  --screen             do not replay: feed the whole cast to a headless
                       terminal (honouring its resizes) and print the final
                       screen as 'ptyhost exec' does
  --format FORMAT      with --screen: text (default), ansi or json
  --backend NAME       with --screen: the headless terminal, as for exec
`

const versionHelp = `usage: ptyhost version

Prints the version of ptyhost and of the Go toolchain that built it.
`

const helpHelp = `usage: ptyhost help [COMMAND]

Prints the help of COMMAND, or the list of commands. 'ptyhost COMMAND
--help' does the same.
`

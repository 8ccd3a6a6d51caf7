package main

import (
	"bufio"
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"go.uber.org/goleak"
	"golang.org/x/sys/unix"

	"github.com/ptyhost/ptyhost/internal/term/xvtgate"
	"github.com/ptyhost/ptyhost/internal/testkit"
)

// helperEnv makes the test binary act as a child program (os/exec's
// helper-process pattern): ptyhost runs it under its PTY.
const helperEnv = "PTYHOST_CLI_HELPER"

// ptyhostBin is the CLI built by TestMain.
var ptyhostBin string

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(helperMain(mode, os.Args[1:]))
	}
	flag.Parse()
	if listingOrFuzzing() {
		// No end-to-end test runs: skip the build (CI lists and fuzzes
		// every package).
		os.Exit(m.Run())
	}
	dir, err := os.MkdirTemp("", "ptyhost-cli-test-")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	ptyhostBin = filepath.Join(dir, "ptyhost")
	if err := buildCLI(ptyhostBin); err != nil {
		fmt.Fprintln(os.Stderr, "building the ptyhost binary:", err)
		os.RemoveAll(dir)
		os.Exit(1)
	}
	code := m.Run()
	os.RemoveAll(dir)
	if code == 0 {
		if err := goleak.Find(); err != nil {
			fmt.Fprintln(os.Stderr, "goleak:", err)
			code = 1
		}
	}
	os.Exit(code)
}

// listingOrFuzzing reports whether the test binary only lists tests or
// runs a fuzz target.
func listingOrFuzzing() bool {
	for _, name := range []string{"test.list", "test.fuzz"} {
		if f := flag.Lookup(name); f != nil && f.Value.String() != "" {
			return true
		}
	}
	return false
}

// buildCLI builds this package into bin, bounded by a watchdog.
func buildCLI(bin string) error {
	gotool, err := exec.LookPath("go")
	if err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	args := []string{"build", "-o", bin}
	var tags []string // the binary under test has what the test binary has
	if xvtgate.Built {
		tags = append(tags, xvtgate.Tag)
	}
	if natsEmbeddedBuilt {
		tags = append(tags, natsEmbeddedTag)
	}
	if len(tags) > 0 {
		args = append(args, "-tags", strings.Join(tags, ","))
	}
	cmd := exec.CommandContext(ctx, gotool, append(args, ".")...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%v\n%s", err, out)
	}
	return nil
}

// helperMain is the child program. Modes:
//
//	draw       paint a screen with colors and cursor moves, then exit 0
//	exit N     exit with status N
//	lines A..  print each argument on a line of its own, then exit 0
//	kill       die of SIGKILL
//	cleanup    draw on the alternate screen (then create the file named by
//	           the argument, if any); on SIGTERM leave it and exit
//	flood      print lines without pause until killed
//	hidden     alternate screen, cursor hidden, a red "HIDDEN"; then wait
//	prompt     print "ready> ", echo one line as "got: LINE", then wait
//	tui        alternate screen, mouse, bracketed paste and focus on; then
//	           answer lines: "size" prints the window size, "ppid" the
//	           parent's pid, "quit" exits without resetting anything,
//	           "exit N" does too with status N, anything else is echoed
func helperMain(mode string, args []string) int {
	out := os.Stdout
	switch mode {
	case "draw":
		fmt.Fprint(out, "\x1b[2J\x1b[H\x1b[1;31mRED\x1b[0m\x1b[3;5H\x1b[42mgreen bg\x1b[0m\x1b[5;1Hdone\x1b[5;3H")
		return 0
	case "exit":
		n, _ := strconv.Atoi(args[0])
		return n
	case "lines":
		for _, a := range args {
			fmt.Fprintln(out, a)
		}
		return 0
	case "kill":
		syscall.Kill(os.Getpid(), syscall.SIGKILL)
		time.Sleep(time.Minute)
		return 1
	case "cleanup":
		sig := make(chan os.Signal, 1)
		signal.Notify(sig, syscall.SIGTERM)
		fmt.Fprint(out, "\x1b[?1049h\x1b[HDRAWN")
		if len(args) > 0 {
			os.WriteFile(args[0], nil, 0o644)
		}
		<-sig
		fmt.Fprint(out, "\x1b[2J\x1b[?1049lcleaned up\n")
		return 0
	case "hidden":
		fmt.Fprint(out, "\x1b[?1049h\x1b[?25l\x1b[H\x1b[1;31mHIDDEN\x1b[0m")
		time.Sleep(time.Hour)
		return 0
	case "flood":
		for i := 0; ; i++ {
			if _, err := fmt.Fprintf(out, "line %d\n", i); err != nil {
				return 1
			}
		}
	case "prompt":
		fmt.Fprint(out, "ready> ")
		line, _ := bufio.NewReader(os.Stdin).ReadString('\n')
		fmt.Fprintf(out, "got: %s\n", strings.TrimSpace(line))
		time.Sleep(time.Hour)
		return 0
	case "tui":
		// No echo: the screen shows only what the program prints, so it
		// is the same in tmux and in a recording.
		if t, err := unix.IoctlGetTermios(0, ioctlGetTermios); err == nil {
			t.Lflag &^= unix.ECHO
			unix.IoctlSetTermios(0, ioctlSetTermiosDrain, t)
		}
		fmt.Fprint(out, "\x1b[?1049h\x1b[H\x1b[2J\x1b[?1000h\x1b[?1006h\x1b[?2004h\x1b[?1004h\x1b[?25l")
		fmt.Fprint(out, "TUI-READY\n")
		sc := bufio.NewScanner(os.Stdin)
		for sc.Scan() {
			line := strings.TrimSpace(sc.Text())
			if n, ok := strings.CutPrefix(line, "exit "); ok {
				code, _ := strconv.Atoi(n)
				return code
			}
			switch line {
			case "quit":
				return 0
			case "ppid":
				fmt.Fprintf(out, "ppid=%d\n", os.Getppid())
			case "size":
				ws, err := unix.IoctlGetWinsize(0, unix.TIOCGWINSZ)
				if err != nil {
					fmt.Fprintln(out, "size error:", err)
					continue
				}
				fmt.Fprintf(out, "size=%dx%d\n", ws.Col, ws.Row)
			default:
				fmt.Fprintf(out, "got: %s\n", line)
			}
		}
		return 0
	}
	fmt.Fprintln(os.Stderr, "unknown helper mode", mode)
	return 99
}

// result is what one run of the CLI did.
type result struct {
	code           int
	stdout, stderr string
}

// cli runs the built binary with args (helper mode set when mode != ""),
// bounded by a watchdog.
func cli(t testing.TB, mode string, stdin string, args ...string) result {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, ptyhostBin, args...)
	cmd.WaitDelay = 5 * time.Second
	cmd.Env = append(os.Environ(), helperEnv+"="+mode)
	if mode == "" {
		cmd.Env = os.Environ()
	}
	cmd.Stdin = strings.NewReader(stdin)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	err := cmd.Run()
	if ctx.Err() != nil {
		t.Fatalf("ptyhost %q: watchdog expired; stdout %q, stderr %q", args, stdout.String(), stderr.String())
	}
	code := 0
	if ee, ok := err.(*exec.ExitError); ok {
		code = ee.ExitCode()
	} else if err != nil {
		t.Fatalf("ptyhost %q: %v", args, err)
	}
	return result{code: code, stdout: stdout.String(), stderr: stderr.String()}
}

// self returns the path of the test binary, the helper program.
func self(t testing.TB) string {
	t.Helper()
	p, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	return p
}

// requireTool skips (or fails, with PTYHOST_REQUIRE_TOOLS=1) without name.
func requireTool(t testing.TB, name string) string { return testkit.RequireTool(t, name) }

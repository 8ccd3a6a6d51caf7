package termdriver

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"testing"

	"go.uber.org/goleak"
	"golang.org/x/sys/unix"

	"github.com/ptyhost/ptyhost/internal/rawterm"
)

// helperEnv makes the test binary act as a child program (os/exec's
// helper-process pattern).
const helperEnv = "TERMDRIVER_TEST_HELPER"

func TestMain(m *testing.M) {
	if mode := os.Getenv(helperEnv); mode != "" {
		os.Exit(runHelper(mode))
	}
	goleak.VerifyTestMain(m)
}

// helperStart returns what Start runs to make this test binary the named
// helper.
func helperStart(mode string) StartSpec {
	return StartSpec{
		Command: []string{os.Args[0], "-test.run=^$"},
		// The race detector sleeps a second at exit unless told not to.
		Env:  []string{helperEnv + "=" + mode, "GORACE=atexit_sleep_ms=0"},
		Cols: 40, Rows: 10,
	}
}

// runHelper is the child program. Modes:
//
//	repl    print "> ", read a line, print "= LINE", again; "quit" exits 0,
//	        "exit" exits 3
//	keys    raw mode and application cursor keys; print "ready", then
//	        each read's bytes in hex on a line of its own
//	lines   print TERMDRIVER_TEST_N green lines "line N" and exit
//	silent  print "silent" and wait for input without echo
func runHelper(mode string) int {
	switch mode {
	case "repl":
		sc := bufio.NewScanner(os.Stdin)
		fmt.Print("> ")
		for sc.Scan() {
			switch sc.Text() {
			case "quit":
				return 0
			case "exit":
				return 3
			}
			fmt.Printf("= %s\n> ", sc.Text())
		}
		return 0
	case "keys":
		t, err := unix.IoctlGetTermios(0, ioctlGetTermios)
		if err != nil {
			fmt.Println("termios:", err)
			return 1
		}
		rawterm.Set(t)
		if err := unix.IoctlSetTermios(0, ioctlSetTermios, t); err != nil {
			fmt.Println("termios:", err)
			return 1
		}
		fmt.Print("\x1b[?1hready\r\n")
		buf := make([]byte, 256)
		for {
			n, err := os.Stdin.Read(buf)
			if err != nil {
				return 0
			}
			fmt.Printf("%x\r\n", buf[:n])
		}
	case "lines":
		n, _ := strconv.Atoi(os.Getenv("TERMDRIVER_TEST_N"))
		for i := range n {
			fmt.Printf("\x1b[32mline\x1b[m %d\n", i)
		}
		return 0
	case "silent":
		fmt.Print("silent")
		buf := make([]byte, 1)
		os.Stdin.Read(buf)
		return 0
	}
	fmt.Fprintln(os.Stderr, "unknown helper mode", mode)
	return 99
}

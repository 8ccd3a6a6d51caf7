package attachclient

import (
	"bufio"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/internal/rawterm"
	"go.uber.org/goleak"
	"golang.org/x/sys/unix"
)

// HelperEnv selects the child program a re-executed test binary runs
// instead of the tests (os/exec's helper-process pattern); the external
// test package uses it too.
const HelperEnv = "ATTACHCLIENT_TEST_HELPER"

func TestMain(m *testing.M) {
	if name := os.Getenv(HelperEnv); name != "" {
		os.Exit(runHelper(name))
	}
	goleak.VerifyTestMain(m)
}

// runHelper is the child program of the end-to-end tests.
//
//	hello  prints a line and exits 3
//	lines  prints "ready", then per input line: "size" prints the terminal
//	       size, "burst N" prints N numbered lines, "exit N" exits N,
//	       anything else is echoed back as GOT<line>
//	firehose writes $FIREHOSE_BYTES bytes of 79-character lines and exits
//	rawcat puts its terminal in raw mode and copies its input to its
//	       output byte for byte
//	group  starts a "stubborn" grandchild in its process group, prints
//	       "GRANDCHILD <pid>", then behaves as lines
//	stubborn ignores SIGHUP and SIGTERM and sleeps: only SIGKILL ends it
//	relay  a relay and its draining viewers, for a host in another
//	       process (relayChild)
func runHelper(name string) int {
	switch name {
	case "group":
		cmd := exec.Command(os.Args[0], "-test.run=^$")
		cmd.Env = append(os.Environ(), HelperEnv+"=stubborn")
		if err := cmd.Start(); err != nil {
			fmt.Println("GRANDCHILD error", err)
			return 2
		}
		fmt.Printf("GRANDCHILD %d\n", cmd.Process.Pid)
		return lines()
	case "stubborn":
		signal.Ignore(syscall.SIGHUP, syscall.SIGTERM)
		time.Sleep(time.Hour)
		return 0
	case "hello":
		fmt.Println("hello from the child")
		return 3
	case "lines":
		return lines()
	case "firehose":
		n, _ := strconv.Atoi(os.Getenv("FIREHOSE_BYTES"))
		line := []byte(strings.Repeat("0123456789abcdef", 5)[:78] + "\n")
		w := bufio.NewWriterSize(os.Stdout, 64<<10)
		for ; n > 0; n -= len(line) {
			w.Write(line)
		}
		w.Flush()
		return 0
	case "relay":
		return relayChild()
	case "rawcat":
		t, err := unix.IoctlGetTermios(0, ioctlGetTermios)
		if err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		rawterm.Set(t)
		if err := unix.IoctlSetTermios(0, ioctlSetTermios, t); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 2
		}
		fmt.Print("raw\r\n")
		buf := make([]byte, 64<<10)
		for {
			n, err := os.Stdin.Read(buf)
			if n > 0 {
				os.Stdout.Write(buf[:n])
			}
			if err != nil {
				return 0
			}
		}
	}
	fmt.Fprintln(os.Stderr, "unknown helper", name)
	return 2
}

func lines() int {
	fmt.Println("ready")
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "size":
			ws, err := unix.IoctlGetWinsize(0, unix.TIOCGWINSZ)
			if err != nil {
				fmt.Println("SIZE error", err)
				continue
			}
			fmt.Printf("SIZE %d %d\n", ws.Row, ws.Col)
		case strings.HasPrefix(line, "burst "):
			n, _ := strconv.Atoi(line[len("burst "):])
			w := bufio.NewWriter(os.Stdout)
			for i := range n {
				fmt.Fprintf(w, "line %06d of the burst, padded to make the frames larger than a few bytes\n", i)
			}
			w.Flush()
		case strings.HasPrefix(line, "exit "):
			n, _ := strconv.Atoi(line[len("exit "):])
			time.Sleep(10 * time.Millisecond) // let the echo of the command drain first
			return n
		default:
			fmt.Printf("GOT<%s>\n", line)
		}
	}
	return 0
}

package ptyhost

import (
	"bytes"
	"fmt"
	"os"
	"os/signal"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/internal/rawterm"
	"github.com/ptyhost/ptyhost/internal/streamgen"
	"go.uber.org/goleak"
	"golang.org/x/sys/unix"
)

// helperEnv selects the helper a re-executed test binary runs instead of
// the tests (os/exec's helper-process pattern).
const helperEnv = "PTYHOST_TEST_HELPER"

func TestMain(m *testing.M) {
	if name := os.Getenv(helperEnv); name != "" {
		os.Exit(runHelper(name))
	}
	goleak.VerifyTestMain(m)
}

// helperSpec returns a Spec running this test binary as the named helper.
func helperSpec(name string, env ...string) Spec {
	return Spec{
		Command: []string{os.Args[0], "-test.run=^$"},
		// The race detector sleeps a second at exit unless told not to.
		Env: append([]string{helperEnv + "=" + name, "GORACE=atexit_sleep_ms=0"}, env...),
	}
}

func runHelper(name string) int {
	switch name {
	case "queries":
		return helperQueries()
	case "wedge":
		return helperWedge()
	case "echo":
		return helperEcho()
	case "gen":
		return helperGen()
	case "genack":
		return helperGenAck()
	case "count":
		return helperCount()
	case "trap":
		return helperTrap()
	case "sighost":
		return helperSigHost()
	case "exit":
		code, _ := strconv.Atoi(os.Getenv("PTYHOST_TEST_CODE"))
		return code
	}
	fmt.Fprintf(os.Stderr, "unknown helper %q\n", name)
	return 2
}

// makeRaw puts the terminal on fd 0 in raw mode (no echo, no line
// discipline, no output processing).
func makeRaw() error {
	t, err := unix.IoctlGetTermios(0, ioctlGetTermios)
	if err != nil {
		return err
	}
	rawterm.Set(t)
	return unix.IoctlSetTermios(0, ioctlSetTermios, t)
}

// helperQueries sends the queries a TUI sends at startup, reads the
// answers (DA1's comes last) and prints them quoted: "ANSWERS <quoted>".
func helperQueries() int {
	if err := makeRaw(); err != nil {
		fmt.Println("raw:", err)
		return 1
	}
	os.Stdout.WriteString(os.Getenv("PTYHOST_TEST_QUERIES"))
	time.AfterFunc(10*time.Second, func() {
		os.Stdout.WriteString("TIMEOUT\r\n")
		os.Exit(1)
	})
	var got []byte
	buf := make([]byte, 256)
	for !bytes.HasSuffix(got, []byte("c")) {
		n, err := os.Stdin.Read(buf)
		if err != nil {
			return 1
		}
		got = append(got, buf[:n]...)
	}
	fmt.Printf("ANSWERS %s\r\n", strconv.Quote(string(got)))
	return 0
}

// helperWedge floods DA1 queries without ever reading its input, then
// either exits (PTYHOST_TEST_THEN=exit) or prints "flooded" and hangs.
func helperWedge() int {
	if err := makeRaw(); err != nil {
		return 1
	}
	q := bytes.Repeat([]byte("\x1b[c"), 10000)
	os.Stdout.Write(q)
	if os.Getenv("PTYHOST_TEST_THEN") == "exit" {
		return 0
	}
	os.Stdout.WriteString("flooded")
	time.Sleep(time.Minute)
	return 0
}

// helperEcho copies its input to its output in raw mode.
func helperEcho() int {
	if err := makeRaw(); err != nil {
		return 1
	}
	os.Stdout.WriteString("ready")
	buf := make([]byte, 4096)
	for {
		n, err := os.Stdin.Read(buf)
		if err != nil {
			return 0
		}
		os.Stdout.Write(buf[:n])
	}
}

// helperGen writes streamgen.Mixed(seed, n) and exits.
func helperGen() int {
	n, _ := strconv.Atoi(os.Getenv("PTYHOST_TEST_N"))
	seed, _ := strconv.ParseUint(os.Getenv("PTYHOST_TEST_SEED"), 10, 64)
	if _, err := os.Stdout.Write(genData(seed, n)); err != nil {
		return 1
	}
	return 0
}

// ackChunk is how much helperGenAck writes before it waits for an ack.
const ackChunk = 64 << 10

// helperGenAck writes streamgen.Mixed(seed, n) in chunks of ackChunk and
// waits for a line on its input (echo off) after each: the reader's flow
// control, so that a test can read a stream many times the ring without
// depending on the scheduler to keep its reader ahead.
func helperGenAck() int {
	n, _ := strconv.Atoi(os.Getenv("PTYHOST_TEST_N"))
	seed, _ := strconv.ParseUint(os.Getenv("PTYHOST_TEST_SEED"), 10, 64)
	t, err := unix.IoctlGetTermios(0, ioctlGetTermios)
	if err != nil {
		return 1
	}
	t.Lflag &^= unix.ECHO
	if err := unix.IoctlSetTermios(0, ioctlSetTermios, t); err != nil {
		return 1
	}
	data := genData(seed, n)
	in := make([]byte, 64)
	for len(data) > 0 {
		k := min(ackChunk, len(data))
		if _, err := os.Stdout.Write(data[:k]); err != nil {
			return 1
		}
		data = data[k:]
		if _, err := os.Stdin.Read(in); err != nil {
			return 1
		}
	}
	return 0
}

func genData(seed uint64, n int) []byte { return streamgen.Mixed(seed, n) }

// helperTrap ignores SIGTERM and SIGHUP, says "ready" and waits forever.
func helperTrap() int {
	signal.Ignore(syscall.SIGTERM, syscall.SIGHUP)
	os.Stdout.WriteString("ready\n")
	time.Sleep(time.Hour)
	return 0
}

package web_test

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// helperEnv selects the program a re-executed test binary runs instead of
// the tests (os/exec's helper-process pattern): the child the browser
// tests' session hosts.
const helperEnv = "PTYHOST_WEB_TEST_HELPER"

func TestMain(m *testing.M) {
	if name := os.Getenv(helperEnv); name != "" {
		os.Exit(runHelper(name))
	}
	goleak.VerifyTestMain(m)
}

func runHelper(name string) int {
	switch name {
	case "shell":
		return helperShell(false)
	case "hostile":
		return helperShell(true)
	case "marks":
		return helperMarks()
	case "keyhex":
		return helperKeyHex()
	}
	fmt.Fprintf(os.Stderr, "unknown helper %q\n", name)
	return 2
}

// hostileStream is what the hostile helper prints: a clipboard write, the
// queries a terminal answers (DA1, DA2, DSR/CPR, DECRQSS, an OSC color
// query, a window report), a title, a bell, a hyperlink to a javascript:
// URI, and the same queries in C1 form. A viewer must answer none and copy
// nothing.
const hostileStream = "\x1b]52;c;cHduZWQ=\x07" + // OSC 52: "pwned" to the clipboard
	"\x1b]52;p;cHduZWQ=\x1b\\" +
	"\x1b[c\x1b[>c\x1b[6n\x1b[?6n\x1b[5n" +
	"\x1bP$qm\x1b\\\x1bP+q544e\x1b\\" +
	"\x1b]10;?\x07\x1b]11;?\x1b\\\x1b]4;1;?\x07" +
	"\x1b[14t\x1b[18t\x1b[21t\x1b[>q\x1b[?u\x1b[?2026$p" +
	"\x1b]0;hostile title\x07\a" +
	"\x1b]8;;javascript:alert(1)\x1b\\link\x1b]8;;\x1b\\" +
	"\u009b6n\u009dl52;c;cHduZWQ=\u009c"

// shellBanner is what the shell helper prints first: a banner, three
// colored lines and its prompt.
func shellBanner() string {
	var b strings.Builder
	b.WriteString("\x1b[1;32mptyhost\x1b[0m browser viewer test \x1b[7m reverse \x1b[0m caf\u00e9\r\n")
	for i := 1; i <= 3; i++ {
		fmt.Fprintf(&b, "line %d \x1b[3%dmcolor %d\x1b[0m\r\n", i, i, i)
	}
	b.WriteString("ready> ")
	return b.String()
}

// helperShell prints shellBanner, then answers every line read
// from its terminal (which echoes, as a cooked terminal does) with "got:"
// and the line. The hostile variant prints hostileStream and "hostile
// done" for each line instead. The line "exit N" ends it with status N.
func helperShell(hostile bool) int {
	fmt.Print(shellBanner())
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		if code, ok := strings.CutPrefix(line, "exit "); ok {
			n, _ := strconv.Atoi(code)
			return n
		}
		if hostile {
			fmt.Print(hostileStream + "hostile done\r\n")
		} else {
			fmt.Printf("got: %s\r\n", line)
		}
		fmt.Print("ready> ")
	}
	return 0
}

// helperMarks is a shell that marks its prompts and commands as the
// shell-integration snippets do: for each line read it announces the
// line (OSC 633;E), starts it (OSC 133;C), prints its output and ends it
// (OSC 133;D) with a status: 2 for a line starting "fail", 0 otherwise.
func helperMarks() int {
	prompt := func() { fmt.Print("\x1b]133;A\x07$ ") }
	prompt()
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		line := strings.TrimRight(sc.Text(), "\r")
		fmt.Printf("\x1b]633;E;%s\x07\x1b]133;C\x07", strings.ReplaceAll(line, ";", `\x3b`))
		status := 0
		if strings.HasPrefix(line, "fail") {
			fmt.Print("FAIL: 2 tests\r\nsee above\r\n")
			status = 2
		} else {
			fmt.Printf("ran %s\r\n", line)
		}
		fmt.Printf("\x1b]133;D;%d\x07", status)
		prompt()
	}
	return 0
}

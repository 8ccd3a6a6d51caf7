package relay_test

import (
	"bufio"
	"fmt"
	"os"
	"strconv"
	"strings"
	"testing"

	"go.uber.org/goleak"
)

// helperEnv makes the test binary the child program of the tests that
// carry a real session (os/exec's helper-process pattern).
const helperEnv = "PTYHOST_RELAY_TEST_HELPER"

func TestMain(m *testing.M) {
	if os.Getenv(helperEnv) == "lines" {
		os.Exit(lines())
	}
	goleak.VerifyTestMain(m)
}

// lines is the child program: it prints "ready", then answers each input
// line with GOT<line>, and exits N on "exit N".
func lines() int {
	fmt.Println("ready")
	sc := bufio.NewScanner(os.Stdin)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if code, ok := strings.CutPrefix(line, "exit "); ok {
			n, _ := strconv.Atoi(code)
			return n
		}
		fmt.Printf("GOT<%s>\n", line)
	}
	return 0
}

// Command testrun runs the project's tests the way the README says:
// `go test -json` with the arguments it is given (default `-race ./...`),
// shown as go test would show them, and closed by a summary that says
// loudly which tests were skipped because a tool they need is missing.
// Its exit status is go test's.
//
//	go run ./internal/testrun            # go test -race ./...
//	go run ./internal/testrun -short ./attachwire/...
package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"time"

	"github.com/ptyhost/ptyhost/internal/testreport"
)

func main() {
	os.Exit(run(os.Args[1:]))
}

func run(args []string) int {
	if len(args) == 0 {
		args = []string{"-race", "./..."}
	}
	cmd := exec.Command("go", append([]string{"test", "-json"}, args...)...)
	cmd.Stderr = os.Stderr
	out, err := cmd.StdoutPipe()
	if err != nil {
		fmt.Fprintln(os.Stderr, "testrun:", err)
		return 1
	}
	start := time.Now()
	if err := cmd.Start(); err != nil {
		fmt.Fprintln(os.Stderr, "testrun:", err)
		return 1
	}
	rep := testreport.New(os.Stdout)
	consumeErr := rep.Consume(out)
	waitErr := cmd.Wait()
	rep.Summary(time.Since(start))
	if consumeErr != nil {
		fmt.Fprintln(os.Stderr, "testrun:", consumeErr)
		return 1
	}
	var exitErr *exec.ExitError
	switch {
	case errors.As(waitErr, &exitErr):
		return exitErr.ExitCode()
	case waitErr != nil:
		fmt.Fprintln(os.Stderr, "testrun:", waitErr)
		return 1
	case rep.Counts().Failed > 0:
		return 1
	}
	return 0
}

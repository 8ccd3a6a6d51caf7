package main

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
)

// goVersion is the Go release that builds the bundle: the WebAssembly
// engine, the wasm_exec.js that must match it, and the gzip streams
// (compress/flate's output may change between releases). The committed
// bundle is what this release builds, byte for byte; raise it together
// with the Go the project's CI installs.
const goVersion = "go1.26.8"

// pinnedEnv marks the build re-run under goVersion, so a toolchain that
// still is not goVersion is an error instead of a loop.
const pinnedEnv = "PTYHOST_WEB_BUILD_PINNED"

// pinGo re-runs the build under goVersion when another Go runs it (the go
// command fetches that toolchain if it is not installed). It reports
// whether it did, having then done the whole build.
func pinGo() (bool, error) {
	if runtime.Version() == goVersion {
		return false, nil
	}
	if os.Getenv(pinnedEnv) != "" {
		return false, fmt.Errorf("build: running under %s with GOTOOLCHAIN=%s; the bundle is built with %s", runtime.Version(), goVersion, goVersion)
	}
	c := exec.Command("go", "run", "./internal/build")
	c.Stdout, c.Stderr = os.Stdout, os.Stderr
	c.Env = append(os.Environ(), "GOTOOLCHAIN="+goVersion, pinnedEnv+"=1")
	if err := c.Run(); err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			return true, fmt.Errorf("build: under %s: %w", goVersion, err)
		}
		return true, fmt.Errorf("build: re-run under %s: %w", goVersion, err)
	}
	return true, nil
}

// goEnv is the environment of the go commands the build runs: the pinned
// toolchain, and none of the caller's flags (a -race or -tags in GOFLAGS
// would change the engine).
func goEnv(extra ...string) []string {
	return append([]string{"GOTOOLCHAIN=" + goVersion, "GOFLAGS="}, extra...)
}

// Command build fills web/dist with the browser viewer's bundle, every
// file stored gzipped (the handler sends the stream as it is, or inflates
// it for a client that does not take gzip). It runs from the web
// directory (go generate ./web does that), under the Go release pinned in
// goVersion: npm ci for the xterm.js and esbuild the lockfile pins,
// esbuild for the page's script and styles, the WebAssembly build of
// web/wasm, and wasm_exec.js from the Go that built it (they must match).
// The same sources give the same bytes, so CI rebuilds the committed
// bundle and fails if anything differs.
package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	if err := build(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

func build() error {
	if _, err := os.Stat("package.json"); err != nil {
		return fmt.Errorf("build: run from the web directory (go generate ./web): %w", err)
	}
	if done, err := pinGo(); done || err != nil {
		return err
	}
	return run(context.Background(), os.Stdout, os.Stderr)
}

// bundle lists the files of the bundle, each built into the staging
// directory and stored gzipped in dist.
var bundle = []string{"index.html", "app.js", "app.css", "engine.wasm", "wasm_exec.js"}

func run(ctx context.Context, stdout, stderr io.Writer) error {
	stage, err := os.MkdirTemp("", "ptyhost-web-build-")
	if err != nil {
		return fmt.Errorf("build: %w", err)
	}
	defer os.RemoveAll(stage)
	cmd := func(env []string, name string, args ...string) error {
		c := exec.CommandContext(ctx, name, args...)
		c.Stdout, c.Stderr = stdout, stderr
		c.Env = append(os.Environ(), env...)
		if err := c.Run(); err != nil {
			return fmt.Errorf("build: %s %s: %w", name, strings.Join(args, " "), err)
		}
		return nil
	}
	if err := cmd(nil, "npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"); err != nil {
		return err
	}
	esbuild := filepath.Join("node_modules", ".bin", "esbuild")
	if err := cmd(nil, esbuild, "src/main.ts", "--bundle", "--minify", "--format=iife",
		"--target=es2020", "--outfile="+filepath.Join(stage, "app.js"), "--log-level=warning"); err != nil {
		return err
	}
	if err := cmd(nil, esbuild, "src/app.css", "--bundle", "--minify",
		"--outfile="+filepath.Join(stage, "app.css"), "--log-level=warning"); err != nil {
		return err
	}
	// -buildvcs=false: the commit and a dirty tree would otherwise be
	// stamped into the module, and the bundle would change with them.
	if err := cmd(goEnv("GOOS=js", "GOARCH=wasm"), "go", "build", "-trimpath", "-buildvcs=false",
		"-ldflags=-s -w", "-o", filepath.Join(stage, "engine.wasm"), "./wasm"); err != nil {
		return err
	}
	if err := copyWasmExec(ctx, filepath.Join(stage, "wasm_exec.js")); err != nil {
		return err
	}
	if err := copyFile("src/index.html", filepath.Join(stage, "index.html")); err != nil {
		return err
	}
	if err := clean("dist"); err != nil {
		return err
	}
	for _, name := range bundle {
		b, err := os.ReadFile(filepath.Join(stage, name))
		if err != nil {
			return fmt.Errorf("build: %w", err)
		}
		if err := writeGz("dist", name, b); err != nil {
			return err
		}
	}
	return nil
}

// copyWasmExec copies the wasm_exec.js of the Go that built engine.wasm:
// lib/wasm since Go 1.24, misc/wasm before.
func copyWasmExec(ctx context.Context, dst string) error {
	c := exec.CommandContext(ctx, "go", "env", "GOROOT")
	c.Env = append(os.Environ(), goEnv()...)
	out, err := c.Output()
	if err != nil {
		return fmt.Errorf("build: go env GOROOT: %w", err)
	}
	root := strings.TrimSpace(string(out))
	for _, dir := range []string{"lib/wasm", "misc/wasm"} {
		src := filepath.Join(root, dir, "wasm_exec.js")
		if _, err := os.Stat(src); err == nil {
			return copyFile(src, dst)
		}
	}
	return fmt.Errorf("build: no wasm_exec.js under %s/lib/wasm or misc/wasm", root)
}

func copyFile(src, dst string) error {
	b, err := os.ReadFile(src)
	if err != nil {
		return fmt.Errorf("build: %w", err)
	}
	if err := os.WriteFile(dst, b, 0o644); err != nil {
		return fmt.Errorf("build: %w", err)
	}
	return nil
}

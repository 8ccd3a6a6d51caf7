// Command build fills web/dist with the browser viewer's bundle. It runs
// from the web directory (go generate ./web does that): npm ci for the
// pinned xterm.js and esbuild, esbuild for the page's script and styles,
// the WebAssembly build of web/wasm (plus a gzip copy the handler serves
// to browsers that accept it), wasm_exec.js from the Go installation that
// builds it (it must match that Go version), and index.html last, since
// its presence is what marks the bundle as built.
package main

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

func main() {
	if err := run(context.Background(), os.Stdout, os.Stderr); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

// generated lists every file run writes into dist, so a rebuild starts clean.
var generated = []string{"index.html", "app.js", "app.css", "engine.wasm", "engine.wasm.gz", "wasm_exec.js"}

func run(ctx context.Context, stdout, stderr io.Writer) error {
	if _, err := os.Stat("package.json"); err != nil {
		return fmt.Errorf("build: run from the web directory (go generate ./web): %w", err)
	}
	for _, name := range generated {
		if err := os.Remove(filepath.Join("dist", name)); err != nil && !errors.Is(err, os.ErrNotExist) {
			return fmt.Errorf("build: %w", err)
		}
	}
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
		"--target=es2020", "--outfile=dist/app.js", "--log-level=warning"); err != nil {
		return err
	}
	if err := cmd(nil, esbuild, "src/app.css", "--bundle", "--minify",
		"--outfile=dist/app.css", "--log-level=warning"); err != nil {
		return err
	}
	if err := cmd([]string{"GOOS=js", "GOARCH=wasm"}, "go", "build", "-trimpath",
		"-ldflags=-s -w", "-o", "dist/engine.wasm", "./wasm"); err != nil {
		return err
	}
	if err := gzipFile("dist/engine.wasm"); err != nil {
		return err
	}
	if err := copyWasmExec(ctx); err != nil {
		return err
	}
	return copyFile("src/index.html", "dist/index.html")
}

// copyWasmExec copies the wasm_exec.js of the Go that built engine.wasm:
// lib/wasm since Go 1.24, misc/wasm before.
func copyWasmExec(ctx context.Context) error {
	out, err := exec.CommandContext(ctx, "go", "env", "GOROOT").Output()
	if err != nil {
		return fmt.Errorf("build: go env GOROOT: %w", err)
	}
	root := strings.TrimSpace(string(out))
	for _, dir := range []string{"lib/wasm", "misc/wasm"} {
		src := filepath.Join(root, dir, "wasm_exec.js")
		if _, err := os.Stat(src); err == nil {
			return copyFile(src, "dist/wasm_exec.js")
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

func gzipFile(name string) error {
	b, err := os.ReadFile(name)
	if err != nil {
		return fmt.Errorf("build: %w", err)
	}
	var buf bytes.Buffer
	zw, err := gzip.NewWriterLevel(&buf, gzip.BestCompression)
	if err != nil {
		return fmt.Errorf("build: %w", err)
	}
	zw.Write(b)
	if err := zw.Close(); err != nil {
		return fmt.Errorf("build: gzip %s: %w", name, err)
	}
	if err := os.WriteFile(name+".gz", buf.Bytes(), 0o644); err != nil {
		return fmt.Errorf("build: %w", err)
	}
	return nil
}

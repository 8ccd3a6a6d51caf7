// Command build fills web/dist with the browser viewer's bundle, every
// file stored gzipped (the handler sends the stream as it is, or inflates
// it for a client that does not take gzip). It runs from the web
// directory (go generate ./web does that), under the Go release pinned in
// goVersion: npm ci for the xterm.js and esbuild the lockfile pins,
// esbuild for the page's scripts and styles, the WebAssembly build of
// web/wasm, and wasm_exec.js from the Go that built it (they must match),
// which leads the boot script. Every file but the page is named for its
// content (app.<hash>.js), so a browser may keep it for good; the page
// names them. The same sources give the same bytes, so CI rebuilds the
// committed bundle and fails if anything differs. It also builds the
// first-paint benchmark's xterm.js-only page into testdata/xtermonly.
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

func run(ctx context.Context, stdout, stderr io.Writer) error {
	stage, err := os.MkdirTemp("", "ptyhost-web-build-")
	if err != nil {
		return fmt.Errorf("build: %w", err)
	}
	defer os.RemoveAll(stage)
	at := func(name string) string { return filepath.Join(stage, name) }
	cmd := func(env []string, name string, args ...string) error {
		c := exec.CommandContext(ctx, name, args...)
		c.Stdout, c.Stderr = stdout, stderr
		c.Env = append(os.Environ(), env...)
		if err := c.Run(); err != nil {
			return fmt.Errorf("build: %s %s: %w", name, strings.Join(args, " "), err)
		}
		return nil
	}
	esbuild := func(args ...string) error {
		return cmd(nil, filepath.Join("node_modules", ".bin", "esbuild"),
			append(args, "--minify", "--log-level=warning")...)
	}
	if err := cmd(nil, "npm", "ci", "--ignore-scripts", "--no-audit", "--no-fund"); err != nil {
		return err
	}
	if err := esbuild("src/main.ts", "--bundle", "--format=iife", "--target=es2020", "--outfile="+at("app.js")); err != nil {
		return err
	}
	if err := esbuild("src/app.css", "--bundle", "--outfile="+at("app.css")); err != nil {
		return err
	}
	if err := esbuild("src/boot.ts", "--bundle", "--format=iife", "--target=es2020", "--outfile="+at("boot-main.js")); err != nil {
		return err
	}
	// The baseline page of the first-paint benchmark: xterm.js alone.
	if err := esbuild("src/xtermonly.ts", "--bundle", "--format=iife", "--target=es2020", "--outfile="+at("xtermonly.js")); err != nil {
		return err
	}
	// -buildvcs=false: the commit and a dirty tree would otherwise be
	// stamped into the module, and the bundle would change with them.
	// Inlining is off but in the runtime and the two packages the screen
	// is fed through (the terminal engine and its painter): it would add
	// some 55 KB to the download for code the page runs a few times per
	// frame, while those run per byte and per cell.
	if err := cmd(goEnv("GOOS=js", "GOARCH=wasm"), "go", "build", "-trimpath", "-buildvcs=false",
		"-gcflags=all=-l", "-gcflags=runtime=", "-gcflags=github.com/ptyhost/ptyhost/internal/term/engine=",
		"-gcflags=github.com/ptyhost/ptyhost/web/screen=",
		"-ldflags=-s -w", "-o", at("engine.wasm"), "./wasm"); err != nil {
		return err
	}
	// The boot script is wasm_exec.js (the Go runtime's side in the page)
	// and boot.ts, in one file: one request before the engine's starts.
	if err := copyWasmExec(ctx, at("wasm_exec.js")); err != nil {
		return err
	}
	if err := esbuild(at("wasm_exec.js"), "--outfile="+at("wasm_exec.min.js")); err != nil {
		return err
	}
	if err := concat(at("boot.js"), at("wasm_exec.min.js"), at("boot-main.js")); err != nil {
		return err
	}
	if err := clean("dist"); err != nil {
		return err
	}
	page, err := os.ReadFile("src/index.html")
	if err != nil {
		return fmt.Errorf("build: %w", err)
	}
	for _, name := range []string{"boot.js", "app.js", "app.css", "engine.wasm"} {
		b, err := os.ReadFile(at(name))
		if err != nil {
			return fmt.Errorf("build: %w", err)
		}
		hashed := hashedName(name, b)
		if page, err = refer(page, name, hashed); err != nil {
			return err
		}
		if err := writeGz("dist", hashed, b); err != nil {
			return err
		}
	}
	if err := writeGz("dist", "index.html", page); err != nil {
		return err
	}
	return writeBaseline(at)
}

// baselineDir holds the benchmark's xterm.js-only page's files, stored
// as the bundle's are.
const baselineDir = "testdata/xtermonly"

func writeBaseline(at func(string) string) error {
	if err := os.MkdirAll(baselineDir, 0o755); err != nil {
		return fmt.Errorf("build: %w", err)
	}
	if err := clean(baselineDir); err != nil {
		return err
	}
	for _, name := range []string{"xtermonly.js", "xtermonly.css"} {
		b, err := os.ReadFile(at(name))
		if err != nil {
			return fmt.Errorf("build: %w", err)
		}
		if err := writeGz(baselineDir, name, b); err != nil {
			return err
		}
	}
	return nil
}

func concat(dst string, srcs ...string) error {
	var out []byte
	for _, src := range srcs {
		b, err := os.ReadFile(src)
		if err != nil {
			return fmt.Errorf("build: %w", err)
		}
		out = append(out, b...)
		if len(b) > 0 && b[len(b)-1] != '\n' {
			out = append(out, '\n')
		}
	}
	if err := os.WriteFile(dst, out, 0o644); err != nil {
		return fmt.Errorf("build: %w", err)
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

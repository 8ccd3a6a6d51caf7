package main

import (
	"bufio"
	"crypto/ed25519"
	"encoding/hex"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/exec"
	"runtime/pprof"
	"strings"
	"time"

	"github.com/ptyhost/ptyhost/relay"
)

// serveArg starts this binary as one of the servers under test; the
// driver measures each as a process of its own, its CPU read from /proc.
const serveArg = "-serve"

// serve runs server kind ("relay" or "bare") on a loopback port, prints
// the address, and stops when stdin closes (the driver is gone).
func serve(kind, key string, maxViewers int, profile string) error {
	if profile != "" {
		f, err := os.Create(profile)
		if err != nil {
			return err
		}
		if err := pprof.StartCPUProfile(f); err != nil {
			return err
		}
		defer func() {
			pprof.StopCPUProfile()
			f.Close()
		}()
	}
	var h http.Handler
	switch kind {
	case "bare":
		h = newBareForwarder()
	case "relay":
		pub, err := hex.DecodeString(key)
		if err != nil || len(pub) != ed25519.PublicKeySize {
			return fmt.Errorf("relay key: want %d bytes of hex", ed25519.PublicKeySize)
		}
		rl, err := relay.New(relay.Config{
			PublicKeys:        []ed25519.PublicKey{pub},
			Logger:            slog.New(slog.NewTextHandler(io.Discard, nil)),
			DialsPerSecond:    1e9, // one address dials every viewer
			MaxViewersPerRoom: maxViewers,
		})
		if err != nil {
			return err
		}
		defer rl.Close()
		h = rl
	default:
		return fmt.Errorf("unknown server %q", kind)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: withMem(h), ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	fmt.Println(ln.Addr().String())
	io.Copy(io.Discard, os.Stdin)
	return srv.Close()
}

// server is a server process under test.
type server struct {
	name string
	cmd  *exec.Cmd
	addr string
	in   io.WriteCloser
}

// startServer starts this binary as server kind.
func startServer(name, kind, key string, maxViewers int, profile string) (*server, error) {
	self, err := os.Executable()
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(self, serveArg, kind, "-key", key, "-viewers", fmt.Sprint(maxViewers), "-cpuprofile", profile)
	cmd.Stderr = os.Stderr
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	line, err := bufio.NewReader(out).ReadString('\n')
	if err != nil {
		cmd.Process.Kill()
		cmd.Wait()
		return nil, fmt.Errorf("%s: no address: %w", name, err)
	}
	return &server{name: name, cmd: cmd, addr: strings.TrimSpace(line), in: in}, nil
}

// stop closes the server's stdin and waits for it.
func (s *server) stop() {
	s.in.Close()
	done := make(chan struct{})
	go func() {
		s.cmd.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
		s.cmd.Process.Kill()
		<-done
	}
}

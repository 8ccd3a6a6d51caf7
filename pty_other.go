//go:build !(linux || darwin || freebsd || netbsd || openbsd || dragonfly)

package ptyhost

import (
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"runtime"
	"syscall"

	"github.com/ptyhost/ptyhost/attachwire"
)

var errPlatform = fmt.Errorf("%w: PTY sessions on %s", ErrUnsupported, runtime.GOOS)

func openPTY(cols, rows int) (master, tty *os.File, err error) { return nil, nil, errPlatform }

func setWinsize(*os.File, int, int, int, int) error { return errPlatform }

func echoMode(*os.File) attachwire.EchoMode { return attachwire.EchoUnknown }

func childAttrs() *syscall.SysProcAttr { return nil }

func startChild(cmd *exec.Cmd, _ *slog.Logger) error { return cmd.Start() }

func killGroup(int, syscall.Signal) error { return errPlatform }

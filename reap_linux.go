package ptyhost

import (
	"bytes"
	"errors"
	"io"
	"os"
	"strconv"
	"syscall"
	"unsafe"

	"github.com/ptyhost/ptyhost/attachwire"
	"golang.org/x/sys/unix"
)

// si_code values of a SIGCHLD siginfo for a child that terminated.
const (
	cldExited = 1
	cldKilled = 2
	cldDumped = 3
)

// awaitExit waits for the child to terminate without reaping it: the
// zombie keeps its pid, and with it the number of its process group,
// from being reused while the session may still signal the group. pinned
// is false when the wait failed; the caller then reaps as usual.
func awaitExit(pid int) (ex attachwire.Exit, pinned bool) {
	var info unix.Siginfo
	for {
		err := unix.Waitid(unix.P_PID, pid, &info, unix.WEXITED|unix.WNOWAIT, nil)
		if err == nil {
			break
		}
		if !errors.Is(err, syscall.EINTR) {
			return attachwire.Exit{}, false
		}
	}
	status := siginfoStatus(&info)
	switch info.Code {
	case cldExited:
		return attachwire.Exit{Code: uint32(status)}, true
	case cldKilled, cldDumped:
		return exitForSignal(syscall.Signal(status)), true
	}
	return attachwire.Exit{}, false
}

// siginfoStatus reads si_status of a SIGCHLD siginfo, which x/sys leaves
// opaque: after si_signo, si_errno and si_code (three ints) comes a union
// aligned like a pointer, whose SIGCHLD member is pid, uid, status.
func siginfoStatus(info *unix.Siginfo) int32 {
	const ptr = unsafe.Sizeof(uintptr(0))
	const union = (3*4 + ptr - 1) &^ (ptr - 1)
	return *(*int32)(unsafe.Add(unsafe.Pointer(info), union+8))
}

// groupHasOthers reports whether a process other than pid is in the
// process group pid leads. When /proc cannot be read it answers true: the
// caller then keeps the group pinned, which is only ever too careful.
//
// It runs once a session's child has exited, over every process on the
// machine, so it reads each one's stat into one buffer and parses it in
// place: on a busy machine a buffer and a field list per process were
// hundreds of KiB of fresh heap for one exit.
func groupHasOthers(pid int) bool {
	dir, err := os.Open("/proc")
	if err != nil {
		return true
	}
	defer dir.Close()
	var buf [512]byte
	for {
		names, err := dir.Readdirnames(256)
		for _, name := range names {
			p, err := strconv.Atoi(name)
			if err != nil || p == pid {
				continue
			}
			if pgrp, ok := procPgrp(p, buf[:]); ok && pgrp == pid {
				return true
			}
		}
		if err != nil {
			return !errors.Is(err, io.EOF)
		}
	}
}

// procPgrp reads the process group of pid from /proc/pid/stat into buf,
// which holds its fields up to pgrp whatever the command name (at most
// 64 bytes).
func procPgrp(pid int, buf []byte) (int, bool) {
	fd, err := unix.Open("/proc/"+strconv.Itoa(pid)+"/stat", unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return 0, false
	}
	n, err := unix.Read(fd, buf)
	unix.Close(fd)
	if err != nil || n <= 0 {
		return 0, false
	}
	return statPgrp(buf[:n])
}

// statPgrp parses the process group out of a /proc/pid/stat line, whose
// fields after the parenthesized command name (which may hold anything,
// parentheses and spaces included) are state, ppid, pgrp.
func statPgrp(stat []byte) (int, bool) {
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	rest := stat[i+1:]
	for range 2 { // state, ppid
		rest = bytes.TrimLeft(rest, " ")
		j := bytes.IndexByte(rest, ' ')
		if j <= 0 {
			return 0, false
		}
		rest = rest[j:]
	}
	rest = bytes.TrimLeft(rest, " ")
	if j := bytes.IndexByte(rest, ' '); j >= 0 {
		rest = rest[:j]
	}
	pgrp, err := strconv.Atoi(string(rest))
	if err != nil || pgrp <= 0 {
		return 0, false // a kernel thread's 0 names no group either
	}
	return pgrp, true
}

package ptyhost

import (
	"bytes"
	"errors"
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
func groupHasOthers(pid int) bool {
	ents, err := os.ReadDir("/proc")
	if err != nil {
		return true
	}
	for _, e := range ents {
		p, err := strconv.Atoi(e.Name())
		if err != nil || p == pid {
			continue
		}
		if pgrp, ok := procPgrp(p); ok && pgrp == pid {
			return true
		}
	}
	return false
}

// procPgrp reads the process group of pid from /proc/pid/stat, whose
// fields after the parenthesized command name are state, ppid, pgrp.
func procPgrp(pid int) (int, bool) {
	stat, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(stat, ')')
	if i < 0 {
		return 0, false
	}
	fields := bytes.Fields(stat[i+1:])
	if len(fields) < 3 {
		return 0, false
	}
	pgrp, err := strconv.Atoi(string(fields[2]))
	return pgrp, err == nil
}

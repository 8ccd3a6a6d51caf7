package sigdfl

import (
	"bufio"
	"bytes"
	"os"
	"strconv"
)

// selfExe names the running executable as the child sees it right after
// fork: /proc/self/exe is still the host's image then, even if the file
// was replaced or deleted since the host started.
func selfExe() (string, error) {
	const self = "/proc/self/exe"
	if _, err := os.Stat(self); err != nil {
		return "", err
	}
	return self, nil
}

// Ignored reports whether this process ignores any signal: the kernel's
// SigIgn mask, which sees inherited dispositions the Go runtime does not
// track (SIGTSTP, SIGTTOU, ...). Without /proc it falls back to what
// os/signal knows.
func Ignored() bool {
	mask, err := ignoredMask(os.Getpid())
	if err != nil {
		return ignoredByRuntime()
	}
	return mask != 0
}

// ignoredMask returns the SigIgn mask of process pid from /proc: bit n-1
// set means signal n is ignored.
func ignoredMask(pid int) (uint64, error) {
	status, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/status")
	if err != nil {
		return 0, err
	}
	sc := bufio.NewScanner(bytes.NewReader(status))
	for sc.Scan() {
		if v, ok := bytes.CutPrefix(sc.Bytes(), []byte("SigIgn:")); ok {
			return strconv.ParseUint(string(bytes.TrimSpace(v)), 16, 64)
		}
	}
	return 0, os.ErrNotExist
}

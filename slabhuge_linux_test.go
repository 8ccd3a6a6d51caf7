package ptyhost

import (
	"bufio"
	"os"
	"runtime"
	"strconv"
	"strings"
	"testing"
	"unsafe"
)

// TestHugeSlabAdvised: where transparent huge pages go to the regions that
// ask, a slab of a huge page lies in memory the kernel has marked for them
// (smaps' VmFlags "hg"), from its first byte to its last.
func TestHugeSlabAdvised(t *testing.T) {
	huge, small := newSlab(hugePage), newSlab(minSlab)
	if len(huge) != hugePage || cap(huge) != hugePage || len(small) != minSlab {
		t.Fatalf("slabs of %d (cap %d) and %d bytes", len(huge), cap(huge), len(small))
	}
	if !hugeAdvised() {
		t.Skip("transparent huge pages are not in madvise mode here: nothing is advised")
	}
	for _, c := range []struct {
		name string
		b    []byte
		want bool
	}{{"huge slab start", huge, true}, {"huge slab end", huge[hugePage-1:], true}} {
		if got := advisedHuge(t, uintptr(unsafe.Pointer(&c.b[0]))); got != c.want {
			t.Errorf("%s: advised %v, want %v", c.name, got, c.want)
		}
	}
	runtime.KeepAlive(huge) // freed, its advice would be withdrawn
}

// advisedHuge reports whether the mapping holding addr has VmFlags hg.
func advisedHuge(t *testing.T, addr uintptr) bool {
	f, err := os.Open("/proc/self/smaps")
	if err != nil {
		t.Skipf("no smaps: %v", err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	in := false
	for sc.Scan() {
		line := sc.Text()
		if lo, hi, ok := strings.Cut(strings.Fields(line + " ")[0], "-"); ok {
			a, err1 := strconv.ParseUint(lo, 16, 64)
			b, err2 := strconv.ParseUint(hi, 16, 64)
			if err1 == nil && err2 == nil {
				in = uint64(addr) >= a && uint64(addr) < b
				continue
			}
		}
		if in && strings.HasPrefix(line, "VmFlags:") {
			return strings.Contains(line+" ", " hg ")
		}
	}
	t.Fatalf("no mapping holds %#x", addr)
	return false
}

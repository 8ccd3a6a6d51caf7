//go:build linux

package ptyhost

import (
	"bytes"
	"os"
	"runtime"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"
)

// hugeAdvised reports whether slabs of a huge page are advised as such:
// only where transparent huge pages are given to the regions that ask
// ("madvise"). With "always" the kernel backs a huge slab with a huge page
// unasked, and with "never" asking is useless.
var hugeAdvised = sync.OnceValue(func() bool {
	b, err := os.ReadFile("/sys/kernel/mm/transparent_hugepage/enabled")
	return err == nil && bytes.Contains(b, []byte("[madvise]"))
})

// newSlab returns a slab of size bytes. A huge page's worth is placed on a
// huge-page boundary, inside an allocation one huge page larger whose
// unused ends are never touched (fresh from the kernel, they cost address
// space only), and advised as a huge page before its first write. When
// the garbage collector frees it, the advice is withdrawn, so that the
// kernel's background collapsing does not turn the heap's later, sparser
// use of those addresses into huge pages.
func newSlab(size int) []byte {
	if size != hugePage || !hugeAdvised() {
		return make([]byte, size)
	}
	whole := make([]byte, size+hugePage)
	base := uintptr(unsafe.Pointer(unsafe.SliceData(whole)))
	off := int((base+hugePage-1)&^(hugePage-1) - base)
	slab := whole[off : off+size : off+size]
	if unix.Madvise(slab, unix.MADV_HUGEPAGE) != nil {
		return slab // an old kernel, or no THP: ordinary pages
	}
	// The cleanup may run after the heap has given these addresses to a
	// new slab and advised them again: that slab then gets ordinary
	// pages, which costs faults, never correctness.
	runtime.AddCleanup(&whole[0], func(addr uintptr) {
		unix.Syscall(unix.SYS_MADVISE, addr, hugePage, unix.MADV_NOHUGEPAGE)
	}, base+uintptr(off))
	return slab
}

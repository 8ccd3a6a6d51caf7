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

// newSlab returns a slab of size bytes; one of a huge page is advised as
// huge pages before its first write. A slab of exactly that size is not
// aligned (the heap places it on an 8 KiB boundary), so the advice covers
// the huge-page regions it overlaps, each shared with a neighbour: the one
// before is mostly resident already (the previous slab's end, or small
// objects), and the one after is where the heap places the next slab
// while the output goes on, so that it too is backed by huge pages. A
// slab padded to an aligned start would cost more: the heap clears a
// whole allocation when it reuses it, faulting in the padding.
//
// When the garbage collector frees the slab the advice is withdrawn from
// those regions, so that the kernel's background collapsing does not turn
// the heap's later, sparser use of them into huge pages. That may land on
// a neighbouring slab's regions not yet written, or on a new slab placed
// at the same addresses: they then get ordinary pages, which costs faults,
// never correctness.
func newSlab(size int) []byte {
	slab := make([]byte, size)
	if size != hugePage || !hugeAdvised() {
		return slab
	}
	base := uintptr(unsafe.Pointer(unsafe.SliceData(slab)))
	beg := base &^ (hugePage - 1)
	end := (base + uintptr(size) + hugePage - 1) &^ (hugePage - 1)
	if _, _, e := unix.Syscall(unix.SYS_MADVISE, beg, end-beg, unix.MADV_HUGEPAGE); e != 0 {
		return slab // an old kernel, or no THP: ordinary pages
	}
	runtime.AddCleanup(&slab[0], func(r [2]uintptr) {
		unix.Syscall(unix.SYS_MADVISE, r[0], r[1]-r[0], unix.MADV_NOHUGEPAGE)
	}, [2]uintptr{beg, end})
	return slab
}

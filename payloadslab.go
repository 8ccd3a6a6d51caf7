package ptyhost

// slabs is where the read loop reads the master's output: each chunk is
// read straight into the free end of the current slab and becomes an
// Output payload as it lies there, capped at its length, so no chunk is
// copied and a short chunk costs no allocation of its own. The slab's
// bytes after a payload are only ever written by later reads, never those
// of a published payload: frames stay immutable, and, being subslices of a
// slab the garbage collector owns, they stay valid for as long as anyone
// holds them (a held frame keeps its whole slab, never a recycled one).
//
// Slabs grow with the session's output, from two chunks' worth to a
// quarter of RingBytes, capped at one huge page (2 MiB): an idle shell's
// session holds 64 KiB, a firehose fills 2 MiB slabs, which are advised as
// huge pages (slabhuge_linux.go), so the kernel backs them with 2 MiB
// pages at one fault each where 4 KiB pages cost 512: on a paravirtualized
// VM each fault is an exit to the hypervisor, and a ring of fresh 4 KiB
// pages faults once for nearly every payload (docs/performance.md, "CPU
// per byte against a bare reader"). A slab grows 32-fold, so the default ring
// goes from the first slab straight to huge ones.
//
// What the ring keeps alive is thus its frames' payloads plus the unused
// ends of at most the slabs they span: within RingBytes plus two slabs
// (1.5 times RingBytes from 256 KiB up). slabs is the read loop's alone.
type slabs struct {
	max  int    // the largest slab, from RingBytes
	next int    // the size of the next slab
	free []byte // the current slab's unused end
}

const (
	// minSlab is the first slab's size: two full chunks.
	minSlab = 2 * MaxOutputFrame
	// hugePage is the size of an x86-64 or arm64 (4 KiB granule) huge
	// page, the largest slab.
	hugePage = 2 << 20
	// payloadAlign is where payloads start within a slab: on a word
	// boundary, so a payload shares no word with its neighbours.
	payloadAlign = 8
)

func newSlabs(ringBytes int) *slabs {
	m := min(max(ringBytes/4, minSlab), hugePage)
	return &slabs{max: m, next: minSlab}
}

// buf returns where the next chunk is read: MaxOutputFrame bytes at the
// free end of the current slab, in a new slab when too few are left.
func (s *slabs) buf() []byte {
	if len(s.free) < MaxOutputFrame {
		s.free = newSlab(s.next)
		s.next = min(32*s.next, s.max)
	}
	return s.free[:MaxOutputFrame]
}

// take returns the n bytes just read into buf() as a payload of their
// own (its capacity is its length, so an append to it copies) and moves
// the free end past them.
func (s *slabs) take(n int) []byte {
	p := s.free[:n:n]
	adv := min((n+payloadAlign-1)&^(payloadAlign-1), len(s.free))
	s.free = s.free[adv:]
	return p
}

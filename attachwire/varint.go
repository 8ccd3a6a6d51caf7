package attachwire

import "encoding/binary"

// maxVarintLen is the longest uvarint docs/protocol.md §1 allows.
const maxVarintLen = binary.MaxVarintLen64

// appendUvarint appends the minimal unsigned LEB128 form of v.
func appendUvarint(dst []byte, v uint64) []byte {
	return binary.AppendUvarint(dst, v)
}

// uvarintLen returns the length of the minimal encoding of v.
func uvarintLen(v uint64) int {
	n := 1
	for v >= 0x80 {
		v >>= 7
		n++
	}
	return n
}

// uvarint decodes a uvarint at the start of p. It returns the value and the
// number of bytes read; n == 0 means p ends while the "more" bit is set
// (truncated), n < 0 means overflow: an 11th byte, or a 10th byte above
// 0x01 (even if the input ends after it). Non-minimal forms are accepted.
func uvarint(p []byte) (v uint64, n int) {
	var s uint
	for i, b := range p {
		if i == maxVarintLen-1 && b > 0x01 {
			return 0, -1
		}
		if b < 0x80 {
			return v | uint64(b)<<s, i + 1
		}
		v |= uint64(b&0x7F) << s
		s += 7
	}
	return 0, 0
}

// decoder reads the fields of one payload or screen. Every method checks
// the remaining input before reading; the first failure sticks in err and
// later reads return zero values, so a codec can read a whole structure and
// check err once. A decoder lives on its caller's stack.
type decoder struct {
	p         []byte // remaining input
	err       error
	lastGlyph string // the last multi-byte cell content, shared by repeats
}

// fail records err unless an earlier error is already recorded.
func (d *decoder) fail(err error) {
	if d.err == nil {
		d.err = err
		d.p = nil
	}
}

// uvarint reads a uvarint field named what.
func (d *decoder) uvarint(what string) uint64 {
	if d.err != nil {
		return 0
	}
	v, n := uvarint(d.p)
	switch {
	case n == 0:
		d.fail(truncated(what))
		return 0
	case n < 0:
		d.fail(framingf("%s: uvarint overflows 64 bits", what))
		return 0
	}
	d.p = d.p[n:]
	return v
}

// u8 reads one byte named what.
func (d *decoder) u8(what string) uint8 {
	if d.err != nil {
		return 0
	}
	if len(d.p) == 0 {
		d.fail(truncated(what))
		return 0
	}
	b := d.p[0]
	d.p = d.p[1:]
	return b
}

// bool reads a u8 that must be exactly 0 or 1.
func (d *decoder) bool(what string) bool {
	b := d.u8(what)
	if b > 1 {
		d.fail(framingf("%s: boolean byte 0x%02x is not 0 or 1", what, b))
	}
	return b == 1
}

// bytes reads a uvarint length and that many bytes, aliasing the input.
// The length is checked against the remaining input before anything is
// sliced or allocated.
func (d *decoder) bytes(what string) []byte {
	n := d.uvarint(what + " length")
	if d.err != nil {
		return nil
	}
	if n > uint64(len(d.p)) {
		d.fail(truncated(what))
		return nil
	}
	b := d.p[:n:n]
	d.p = d.p[n:]
	return b
}

// end records a framing error if input remains, and returns the error.
func (d *decoder) end(what string) error {
	if d.err == nil && len(d.p) != 0 {
		d.fail(framingf("%s: %d trailing bytes", what, len(d.p)))
	}
	return d.err
}

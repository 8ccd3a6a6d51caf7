package viewer

import (
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/internal/inputcut"
)

// pendingInput is one Input frame's data, kept until acknowledged.
type pendingInput struct {
	seq  uint64
	data []byte
}

// inputQueue numbers Input from 1 for the life of the Client and keeps
// what the relay has not acknowledged. sent is the last inputSeq written
// on the current leg; a new leg starts it again at the last ack, so the
// rest is resent. Not safe for concurrent use (the Client's lock).
type inputQueue struct {
	next    uint64 // the last inputSeq assigned
	acked   uint64
	sent    uint64
	pending []pendingInput
	bytes   int
}

// add queues p in frames of at most maxInputChunk bytes, cut where
// inputcut says (never inside a rune or a short escape sequence).
func (q *inputQueue) add(p []byte, limit int) error {
	if len(p) == 0 {
		return nil
	}
	if q.bytes+len(p) > limit {
		return ErrInputFull
	}
	for len(p) > 0 {
		n := inputcut.Cut(p, maxInputChunk)
		q.next++
		q.pending = append(q.pending, pendingInput{seq: q.next, data: append([]byte(nil), p[:n]...)})
		q.bytes += n
		p = p[n:]
	}
	return nil
}

// ack drops what ackSeq covers. An ack below one already received means
// the relay lost its count (a restarted relay starts every connection at
// 0 and drops anything but the next seq): what is pending is numbered
// again from ackSeq+1 and resent, as the protocol's "resend from
// input_ack+1" asks.
func (q *inputQueue) ack(ackSeq uint64) {
	if ackSeq < q.acked {
		q.acked, q.sent = ackSeq, ackSeq
		for i := range q.pending {
			q.pending[i].seq = ackSeq + 1 + uint64(i)
		}
		q.next = ackSeq + uint64(len(q.pending))
		return
	}
	if ackSeq == q.acked {
		return
	}
	q.acked = ackSeq
	i := 0
	for i < len(q.pending) && q.pending[i].seq <= ackSeq {
		q.bytes -= len(q.pending[i].data)
		i++
	}
	q.pending = append(q.pending[:0], q.pending[i:]...)
	q.sent = max(q.sent, ackSeq)
}

// newLeg makes everything after the last ack due again.
func (q *inputQueue) newLeg() { q.sent = q.acked }

// due appends the frames to send now, stamped with penGen and the last
// host seq applied, and marks them sent.
func (q *inputQueue) due(dst []attachwire.Frame, penGen, hostSeq uint64) []attachwire.Frame {
	for _, p := range q.pending {
		if p.seq <= q.sent {
			continue
		}
		in := attachwire.Input{InputSeq: p.seq, PenGeneration: penGen, Data: p.data}
		dst = append(dst, in.Frame(hostSeq, 0))
		q.sent = p.seq
	}
	return dst
}

// rewind makes everything after ackSeq due again: the relay refused a
// batch whole (a lane 409) and holds ackSeq.
func (q *inputQueue) rewind(ackSeq uint64) {
	q.ack(ackSeq)
	q.sent = q.acked
}

package attachclient

import "sync"

// recentInputs is the input dedup set's size.
const recentInputs = 4096

// inputKey identifies a stamped keystroke: the lane delivers at least
// once, a relay may replay on any carrier, and the relay never reuses a
// triple for another keystroke.
type inputKey struct {
	user       string
	pen, input uint64
}

// inputSet is a bounded recency set of inputKeys.
type inputSet struct {
	mu   sync.Mutex
	seen map[inputKey]struct{}
	ring []inputKey
	next int
}

// add records k and reports whether it was new.
func (s *inputSet) add(k inputKey) bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, dup := s.seen[k]; dup {
		return false
	}
	if s.seen == nil {
		s.seen = make(map[inputKey]struct{}, recentInputs)
		s.ring = make([]inputKey, 0, recentInputs)
	}
	if len(s.ring) < recentInputs {
		s.ring = append(s.ring, k)
	} else {
		delete(s.seen, s.ring[s.next])
		s.ring[s.next] = k
		s.next = (s.next + 1) % recentInputs
	}
	s.seen[k] = struct{}{}
	return true
}

// remove forgets k, added for an input that was then not handed to the
// session (the leg ended first): its replay must be typed, not dropped.
// The rare path scans the ring; its slot becomes the zero key, which add
// never records (unstamped input is dropped before).
func (s *inputSet) remove(k inputKey) {
	s.mu.Lock()
	defer s.mu.Unlock()
	delete(s.seen, k)
	for i, r := range s.ring {
		if r == k {
			s.ring[i] = inputKey{}
		}
	}
}

package share

import (
	"errors"
	"fmt"
	"strings"

	"github.com/ptyhost/ptyhost/attachwire/seal"
)

// ErrNotSealed is Rekey's refusal for a share started Unsealed.
var ErrNotSealed = errors.New("share: the room is not end-to-end encrypted: there is no key to change")

// initRekey readies Rekey once the links are minted.
func (s *Share) initRekey() {
	s.links = s.Links
	if s.Links.Key != nil {
		s.rekey = make(chan *seal.Key, 1)
	}
}

// Rekey starts a new room key and returns the links under it: the same
// tokens or invites, the new key in their fragments. The host carrying
// the session (Carry) seals under it from then on and redials; the relay
// then turns away everyone holding the old key, so the old links stop
// working, and nothing sealed under the old key is served again. Links
// keeps the links as first minted.
func (s *Share) Rekey() (Links, error) {
	if s.rekey == nil {
		return Links{}, ErrNotSealed
	}
	k, err := seal.GenerateKey()
	if err != nil {
		return Links{}, fmt.Errorf("share: %w", err)
	}
	s.keyMu.Lock()
	defer s.keyMu.Unlock()
	l := s.links
	for _, p := range []*string{&l.WatchLink, &l.DriveLink} {
		if i := strings.LastIndexByte(*p, '.'); i >= 0 && strings.Contains((*p)[:i], "#") {
			*p = (*p)[:i] + "." + k.Encode()
		}
	}
	l.Key = k
	// A key not yet taken is replaced: only the newest matters.
	select {
	case <-s.rekey:
	default:
	}
	s.rekey <- k
	s.links = l
	return l, nil
}

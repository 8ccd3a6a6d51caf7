package relay

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"sort"
	"strings"
	"time"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/ptyhost/ptyhost/issuer"
)

// issuerBucket keeps issuer mode's state in a cluster: rooms and their
// owners ("room.<id>"), invites ("inv.<room>.<id>") and how many legs each
// node holds of an invite ("hold.<room>.<id>"). A bucket of its own, so
// that the room-ownership watcher never sees these entries.
const issuerBucket = "ptyhost_relay_issuer"

// inviteKV is issuer.Store over the cluster's NATS key-value store, and
// the cluster-wide count of each invite's holders.
type inviteKV struct {
	c  *cluster
	kv jetstream.KeyValue
}

func openInviteKV(c *cluster) (*inviteKV, error) {
	js, err := jetstream.New(c.nc)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrClusterUnavailable, err)
	}
	kv, err := openBucketNamed(js, issuerBucket, c.rl.cfg.NATSReplicas)
	if err != nil {
		return nil, fmt.Errorf("%w: issuer bucket: %w", ErrClusterUnavailable, err)
	}
	return &inviteKV{c: c, kv: kv}, nil
}

var errNoEntry = &issuer.Error{Code: issuer.CodeNotFound, Message: "no such room or invite"}

func (s *inviteKV) get(ctx context.Context, key string, v any) (uint64, error) {
	ent, err := s.kv.Get(ctx, key)
	if errors.Is(err, jetstream.ErrKeyNotFound) {
		return 0, errNoEntry
	}
	if err != nil {
		return 0, err
	}
	if err := json.Unmarshal(ent.Value(), v); err != nil {
		return 0, fmt.Errorf("relay: issuer bucket entry %s: %w", key, err)
	}
	return ent.Revision(), nil
}

// CreateRoom implements issuer.Store.
func (s *inviteKV) CreateRoom(ctx context.Context, r issuer.Room) error {
	b, _ := json.Marshal(r)
	_, err := s.kv.Create(ctx, "room."+r.ID, b)
	return err
}

// Room implements issuer.Store.
func (s *inviteKV) Room(ctx context.Context, id string) (issuer.Room, error) {
	var r issuer.Room
	_, err := s.get(ctx, "room."+id, &r)
	return r, err
}

// CreateInvite implements issuer.Store.
func (s *inviteKV) CreateInvite(ctx context.Context, inv issuer.Invite) error {
	b, _ := json.Marshal(inv)
	_, err := s.kv.Create(ctx, "inv."+inviteKey(inv.Room, inv.ID), b)
	return err
}

// Invite implements issuer.Store.
func (s *inviteKV) Invite(ctx context.Context, room, id string) (issuer.Invite, error) {
	var inv issuer.Invite
	_, err := s.get(ctx, "inv."+inviteKey(room, id), &inv)
	return inv, err
}

// Invites implements issuer.Store.
func (s *inviteKV) Invites(ctx context.Context, room string) ([]issuer.Invite, error) {
	kl, err := s.kv.ListKeysFiltered(ctx, "inv."+room+".*")
	if err != nil {
		return nil, err
	}
	defer kl.Stop()
	var out []issuer.Invite
	for k := range kl.Keys() {
		var inv issuer.Invite
		if _, err := s.get(ctx, k, &inv); err == nil {
			out = append(out, inv)
		} else if !errors.Is(err, issuer.ErrNotFound) {
			return nil, err
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Created < out[j].Created })
	return out, nil
}

// Revoke implements issuer.Store.
func (s *inviteKV) Revoke(ctx context.Context, room, id string) error {
	key := "inv." + inviteKey(room, id)
	for range 8 {
		var inv issuer.Invite
		rev, err := s.get(ctx, key, &inv)
		if err != nil {
			return err
		}
		inv.Revoked = true
		b, _ := json.Marshal(inv)
		if _, err = s.kv.Update(ctx, key, b, rev); err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return err
		}
	}
	return errors.New("relay: the invite kept changing")
}

// holderCounts is a "hold.…" entry: legs of the invite per node.
type holderCounts map[string]int

// live sums the counts of the nodes not known dead: a node lost without
// releasing its legs stops counting once it has been silent for
// holderSilence (a node never heard yet still counts: rather one guest
// too few than one too many).
func (s *inviteKV) live(h holderCounts) int {
	now := s.c.rl.cfg.Now()
	s.c.mu.Lock()
	defer s.c.mu.Unlock()
	n := 0
	for node, k := range h {
		if last, ok := s.c.beats[node]; node == s.c.node || !ok || now.Sub(last) <= holderSilence {
			n += k
		}
	}
	return n
}

// holderSilence is how long a node must have been silent for its holders
// of invites to stop counting.
const holderSilence = 10 * ownerSilence

// holders returns the invite's live legs over the cluster.
func (s *inviteKV) holders(ctx context.Context, key string) (int, error) {
	var h holderCounts
	if _, err := s.get(ctx, "hold."+key, &h); err != nil {
		if errors.Is(err, issuer.ErrNotFound) {
			return 0, nil
		}
		return 0, err
	}
	return s.live(h), nil
}

// addHolder changes this node's count of the invite's legs by delta, by
// compare-and-swap; an increase past max (0: no cap) over the live nodes
// is refused with errInviteFull.
func (s *inviteKV) addHolder(ctx context.Context, key string, max, delta int) error {
	k := "hold." + key
	for range 16 {
		h := holderCounts{}
		rev, err := s.get(ctx, k, &h)
		if err != nil && !errors.Is(err, issuer.ErrNotFound) {
			return err
		}
		if delta > 0 && max > 0 && s.live(h) >= max {
			return errInviteFull
		}
		h[s.c.node] = h[s.c.node] + delta
		if h[s.c.node] <= 0 {
			delete(h, s.c.node)
		}
		b, _ := json.Marshal(h)
		if rev == 0 {
			_, err = s.kv.Create(ctx, k, b)
		} else {
			_, err = s.kv.Update(ctx, k, b, rev)
		}
		if err == nil {
			return nil
		}
		if ctx.Err() != nil || !isCASConflict(err) {
			return err
		}
		time.Sleep(time.Duration(1+rand.IntN(10)) * time.Millisecond) // apart from the rival writer
	}
	return errors.New("relay: the invite's holders kept changing")
}

// isCASConflict reports whether a key-value write lost a race.
func isCASConflict(err error) bool {
	return errors.Is(err, jetstream.ErrKeyExists) || strings.Contains(err.Error(), "wrong last sequence")
}

package issuer

import (
	"context"
	"sort"
	"sync"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
)

// Room is a room the issuer made, and whose it is.
type Room struct {
	ID string `json:"id"`
	// Owner is the fingerprint (SHA256:…) of the key that made it: only a
	// session of that key may mint its host tokens and invites.
	Owner string `json:"owner"`
	// OwnerName is the owner's user name when the room was made.
	OwnerName string `json:"ownerName"`
	Created   int64  `json:"created"`
}

// Invite is an invite as the store keeps it: the secret's hash, never the
// secret.
type Invite struct {
	ID         string          `json:"id"`
	Room       string          `json:"room"`
	Role       attachwire.Role `json:"role"`
	SecretHash string          `json:"secretHash"`
	ExpiresAt  int64           `json:"expiresAt"`
	MaxHolders int             `json:"maxHolders"`
	Propose    bool            `json:"propose,omitempty"`
	Revoked    bool            `json:"revoked"`
	Created    int64           `json:"created"`
}

// Store keeps the issuer's rooms and invites. A relay standalone uses
// MemStore; a relay in a cluster keeps them in the cluster's NATS
// key-value store, so that every node sees them. Methods return an error
// matching ErrNotFound for a room or invite they do not have.
type Store interface {
	// CreateRoom records a new room; an existing id is an error.
	CreateRoom(ctx context.Context, r Room) error
	// Room returns the room named id.
	Room(ctx context.Context, id string) (Room, error)
	// CreateInvite records a new invite of an existing room.
	CreateInvite(ctx context.Context, inv Invite) error
	// Invite returns the invite id of room.
	Invite(ctx context.Context, room, id string) (Invite, error)
	// Invites returns every invite of room (expired ones may be left out).
	Invites(ctx context.Context, room string) ([]Invite, error)
	// Revoke marks the invite revoked.
	Revoke(ctx context.Context, room, id string) error
}

// MemStore is a Store in memory, for a relay on its own. It forgets
// invites a day after they expire and rooms after MaxInviteTTL without a
// new invite. The zero MemStore is not usable: use NewMemStore.
type MemStore struct {
	now func() int64

	mu      sync.Mutex
	rooms   map[string]Room
	invites map[string]map[string]Invite // room → id → invite
	lastUse map[string]int64             // room → last creation of it or an invite
}

// NewMemStore returns an empty MemStore reading the clock now (nil: the
// real clock).
func NewMemStore(now func() int64) *MemStore {
	if now == nil {
		now = unixNow
	}
	return &MemStore{now: now, rooms: make(map[string]Room), invites: make(map[string]map[string]Invite),
		lastUse: make(map[string]int64)}
}

var notFound = refusal(CodeNotFound, "no such room or invite")

// CreateRoom implements Store.
func (m *MemStore) CreateRoom(_ context.Context, r Room) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	m.prune()
	if _, ok := m.rooms[r.ID]; ok {
		return refusal(CodeInternal, "room id taken")
	}
	m.rooms[r.ID] = r
	m.lastUse[r.ID] = m.now()
	return nil
}

// Room implements Store.
func (m *MemStore) Room(_ context.Context, id string) (Room, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	r, ok := m.rooms[id]
	if !ok {
		return Room{}, notFound
	}
	return r, nil
}

// CreateInvite implements Store.
func (m *MemStore) CreateInvite(_ context.Context, inv Invite) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	if _, ok := m.rooms[inv.Room]; !ok {
		return notFound
	}
	if m.invites[inv.Room] == nil {
		m.invites[inv.Room] = make(map[string]Invite)
	}
	m.invites[inv.Room][inv.ID] = inv
	m.lastUse[inv.Room] = m.now()
	return nil
}

// Invite implements Store.
func (m *MemStore) Invite(_ context.Context, room, id string) (Invite, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	inv, ok := m.invites[room][id]
	if !ok {
		return Invite{}, notFound
	}
	return inv, nil
}

// Invites implements Store.
func (m *MemStore) Invites(_ context.Context, room string) ([]Invite, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]Invite, 0, len(m.invites[room]))
	for _, inv := range m.invites[room] {
		out = append(out, inv)
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Created < out[j].Created })
	return out, nil
}

// Revoke implements Store.
func (m *MemStore) Revoke(_ context.Context, room, id string) error {
	m.mu.Lock()
	defer m.mu.Unlock()
	inv, ok := m.invites[room][id]
	if !ok {
		return notFound
	}
	inv.Revoked = true
	m.invites[room][id] = inv
	return nil
}

// prune drops invites a day past their expiry and rooms unused for
// MaxInviteTTL; called under mu when a room is made, so that the work is
// paid by the callers who grow the store.
func (m *MemStore) prune() {
	now := m.now()
	for room, invs := range m.invites {
		for id, inv := range invs {
			if now > inv.ExpiresAt+86400 {
				delete(invs, id)
			}
		}
		if len(invs) == 0 {
			delete(m.invites, room)
		}
	}
	for id, last := range m.lastUse {
		if now-last > int64(MaxInviteTTL.Seconds()) && len(m.invites[id]) == 0 {
			delete(m.rooms, id)
			delete(m.lastUse, id)
		}
	}
}

func unixNow() int64 { return time.Now().Unix() }

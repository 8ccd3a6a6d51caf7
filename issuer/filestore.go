package issuer

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
)

// FileStore is a MemStore kept in a file, so that a relay on its own
// keeps its rooms and invites (and their links) across a restart. Every
// change rewrites the file whole (a new file renamed over the old, mode
// 0600: it holds the invites' secret hashes and who owns which room).
type FileStore struct {
	*MemStore
	path string
	save sync.Mutex // one rewrite at a time, in the order of the changes
}

// fileState is the file's content.
type fileState struct {
	Rooms   []Room   `json:"rooms"`
	Invites []Invite `json:"invites"`
}

// OpenFileStore reads path (a missing file is an empty store) and returns
// the store kept there; now is MemStore's clock.
func OpenFileStore(path string, now func() int64) (*FileStore, error) {
	f := &FileStore{MemStore: NewMemStore(now), path: path}
	b, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return f, nil
	}
	if err != nil {
		return nil, fmt.Errorf("issuer: state file: %w", err)
	}
	var st fileState
	if err := json.Unmarshal(b, &st); err != nil {
		return nil, fmt.Errorf("issuer: state file %s: not the issuer's JSON: %w", path, err)
	}
	m := f.MemStore
	for _, r := range st.Rooms {
		if !ValidRoomID(r.ID) {
			return nil, fmt.Errorf("issuer: state file %s: room id %q", path, r.ID)
		}
		m.rooms[r.ID] = r
		m.lastUse[r.ID] = m.now()
	}
	for _, inv := range st.Invites {
		if _, ok := m.rooms[inv.Room]; !ok || !ValidInviteID(inv.ID) {
			return nil, fmt.Errorf("issuer: state file %s: an invite of no room, or a bad id", path)
		}
		if m.invites[inv.Room] == nil {
			m.invites[inv.Room] = make(map[string]Invite)
		}
		m.invites[inv.Room][inv.ID] = inv
	}
	return f, nil
}

// write saves the store's state.
func (f *FileStore) write() error {
	f.save.Lock()
	defer f.save.Unlock()
	m := f.MemStore
	m.mu.Lock()
	var st fileState
	for _, r := range m.rooms {
		st.Rooms = append(st.Rooms, r)
	}
	for _, invs := range m.invites {
		for _, inv := range invs {
			st.Invites = append(st.Invites, inv)
		}
	}
	m.mu.Unlock()
	b, err := json.Marshal(st)
	if err != nil {
		return err
	}
	tmp, err := os.CreateTemp(filepath.Dir(f.path), ".issuer-state-*")
	if err != nil {
		return fmt.Errorf("issuer: state file: %w", err)
	}
	defer os.Remove(tmp.Name())
	if _, err = tmp.Write(b); err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err == nil {
		err = os.Rename(tmp.Name(), f.path)
	}
	if err != nil {
		return fmt.Errorf("issuer: state file: %w", err)
	}
	return nil
}

// CreateRoom implements Store.
func (f *FileStore) CreateRoom(ctx context.Context, r Room) error {
	if err := f.MemStore.CreateRoom(ctx, r); err != nil {
		return err
	}
	return f.write()
}

// CreateInvite implements Store.
func (f *FileStore) CreateInvite(ctx context.Context, inv Invite) error {
	if err := f.MemStore.CreateInvite(ctx, inv); err != nil {
		return err
	}
	return f.write()
}

// Revoke implements Store.
func (f *FileStore) Revoke(ctx context.Context, room, id string) error {
	if err := f.MemStore.Revoke(ctx, room, id); err != nil {
		return err
	}
	return f.write()
}

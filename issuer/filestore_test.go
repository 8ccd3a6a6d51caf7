package issuer

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// A FileStore reopened holds what was stored before: rooms, invites and
// revocations; the file is private; a file that is not the issuer's is
// an error.
func TestFileStoreSurvivesAReopen(t *testing.T) {
	path := filepath.Join(t.TempDir(), "state.json")
	ctx := context.Background()
	s, err := OpenFileStore(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	room := Room{ID: NewRoomID(), Owner: "SHA256:x", OwnerName: "alice", Created: 1}
	_, hash := newSecret()
	inv := Invite{ID: randomID(inviteIDLen), Room: room.ID, Role: "viewer", SecretHash: hash, ExpiresAt: unixNow() + 60, Created: 2}
	if err := s.CreateRoom(ctx, room); err != nil {
		t.Fatal(err)
	}
	if err := s.CreateInvite(ctx, inv); err != nil {
		t.Fatal(err)
	}
	if err := s.Revoke(ctx, room.ID, inv.ID); err != nil {
		t.Fatal(err)
	}
	if fi, err := os.Stat(path); err != nil || fi.Mode().Perm() != 0o600 {
		t.Fatalf("state file %v, %v: want mode 0600", fi, err)
	}
	again, err := OpenFileStore(path, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := again.Room(ctx, room.ID); err != nil || got != room {
		t.Fatalf("room after reopen: %+v %v", got, err)
	}
	if got, err := again.Invite(ctx, room.ID, inv.ID); err != nil || !got.Revoked || got.SecretHash != hash {
		t.Fatalf("invite after reopen: %+v %v", got, err)
	}
	for _, body := range []string{"not json", `{"rooms":[{"id":"NOT AN ID"}]}`, `{"invites":[{"id":"aaaaaaaaaa","room":"nosuchroom12"}]}`} {
		os.WriteFile(path, []byte(body), 0o600)
		if _, err := OpenFileStore(path, nil); err == nil {
			t.Errorf("%s: opened", body)
		}
	}
}

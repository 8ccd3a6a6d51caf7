package share

import (
	"context"
	"errors"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/coder/websocket"
	"github.com/ptyhost/ptyhost"
	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/attachwire/seal"
	"github.com/ptyhost/ptyhost/relaytest"
)

// TestRekey: a new key keeps the links' tokens and changes their key;
// the viewer holding the old key is turned away, the old link no longer
// admits, and the new link's viewer gets the session sealed under the
// new key. An unsealed share has no key to change.
func TestRekey(t *testing.T) {
	s, err := Start(Config{Epoch: 9})
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	sess, err := ptyhost.Spawn(ptyhost.Spec{Command: []string{os.Args[0]}, Env: []string{helperEnv + "=long"}, Epoch: 9})
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	carried := make(chan error, 1)
	go func() { carried <- s.Carry(ctx, sess.Agent(), nil) }()
	defer func() {
		sess.Stop(context.Background())
		cancel()
		<-carried
	}()
	old := s.Links
	sub := func(k *seal.Key) attachwire.Subscribe {
		return attachwire.Subscribe{SessionID: old.Room, AsRole: attachwire.RoleViewer, Sealed: k.ID().String()}
	}
	v := relaytest.MustDial(t, old.AttachURL, old.ViewerToken, sub(old.Key))
	relaytest.NextFrame(t, v) // the session's first snapshot

	l, err := s.Rekey()
	if err != nil {
		t.Fatal(err)
	}
	if l.Key == nil || l.Key.Equal(old.Key) || l.ViewerToken != old.ViewerToken || !strings.HasSuffix(l.BrowserURL("T"), "&key="+l.Key.Encode()) {
		t.Fatalf("new links %+v", l)
	}
	cl := relaytest.ExpectClose(t, v)
	if cl.Status != websocket.StatusPolicyViolation || cl.Err == nil || cl.Err.Code != attachwire.CodeSealed {
		t.Fatalf("the old key's viewer ended %+v", cl)
	}
	again := relaytest.MustDial(t, old.AttachURL, old.PageViewerToken, sub(old.Key))
	if cl := relaytest.ExpectClose(t, again); cl.Err == nil || cl.Err.Code != attachwire.CodeSealed {
		t.Fatalf("the old link admitted again: %+v", cl)
	}
	nv := relaytest.MustDial(t, l.AttachURL, l.ViewerToken, sub(l.Key))
	f := relaytest.NextFrame(t, nv)
	if _, err := seal.NewRoom(l.Key, l.Room).Open(f, 9); err != nil {
		t.Fatalf("the new key's viewer got %v seq %d: %v", f.Type, f.Seq, err)
	}

	plain, err := Start(Config{Unsealed: true})
	if err != nil {
		t.Fatal(err)
	}
	defer plain.Close()
	if _, err := plain.Rekey(); !errors.Is(err, ErrNotSealed) {
		t.Errorf("Rekey of an unsealed share: %v", err)
	}
}

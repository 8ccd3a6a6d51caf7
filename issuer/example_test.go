package issuer_test

import (
	"context"
	"crypto/ed25519"
	"crypto/rand"
	"fmt"
	"net/http/httptest"
	"strings"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/issuer"
	"golang.org/x/crypto/ssh"
)

// A sharer logs in with an SSH key listed on the relay, makes a room and
// a watch invite; a guest redeems the invite's secret for a viewer token.
func Example() {
	_, relayKey, _ := ed25519.GenerateKey(rand.Reader)
	userPub, userPriv, _ := ed25519.GenerateKey(rand.Reader)
	signer, _ := ssh.NewSignerFromKey(userPriv)
	sshPub, _ := ssh.NewPublicKey(userPub)
	line := strings.TrimSpace(string(ssh.MarshalAuthorizedKey(sshPub))) + " alice@laptop\n"
	users, _ := issuer.ParseAuthorizedKeys([]byte(line), nil)

	srv, _ := issuer.NewServer(issuer.Config{Key: relayKey, Users: users})
	ts := httptest.NewServer(srv)
	defer ts.Close()

	ctx := context.Background()
	c, _ := issuer.NewClient(ts.URL, nil)
	who, err := c.Login(ctx, signer)
	if err != nil {
		fmt.Println(err)
		return
	}
	room, _ := c.CreateRoom(ctx)
	inv, _ := c.CreateInvite(ctx, room, issuer.InviteRequest{Role: attachwire.RoleViewer, TTLSeconds: 3600})
	fmt.Println("logged in as", who.User)
	fmt.Println("link length:", len(c.Link(room, inv.Secret)) == len(ts.URL)+len("/s/")+12+1+22)

	guest, _ := issuer.NewClient(ts.URL, nil)
	tok, err := guest.Redeem(ctx, room, inv.Secret, "  Bob  ")
	fmt.Println(tok.Role, strings.HasPrefix(tok.UserID, "guest-"), err)
	// Output:
	// logged in as alice@laptop
	// link length: true
	// viewer true <nil>
}

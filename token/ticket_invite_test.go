package token_test

import (
	"crypto/ed25519"
	"testing"
	"time"

	"github.com/ptyhost/ptyhost/attachwire"
	"github.com/ptyhost/ptyhost/token"
)

// A ticket carries its token's name and inv claims through to the lane
// leg; empty ones are refused like a token's.
func TestTicketCarriesNameAndInvite(t *testing.T) {
	pub, priv, _ := token.GenerateKey()
	v, _ := token.NewVerifier([]ed25519.PublicKey{pub}, token.VerifierOptions{})
	now := time.Now().Unix()
	tk := token.Ticket{SessionID: "s", RoomID: "s", UserID: "guest-abcdefgh", Role: attachwire.RoleViewer, OrgID: "issuer",
		IssuedAt: now, ExpiresAt: now + 30, Audience: token.TicketAudience, JTI: "j", TID: "t", Name: "Ann", Invite: "inv1"}
	raw, err := token.MintSSETicket(priv, tk)
	if err != nil {
		t.Fatal(err)
	}
	got, err := v.VerifySSETicket(raw)
	if err != nil || got.Name != "Ann" || got.Invite != "inv1" || got.Claims().Invite != "inv1" || got.Claims().Name != "Ann" {
		t.Fatalf("%+v %v", got, err)
	}
	tk.Name = "a\x07b"
	if _, err := token.MintSSETicket(priv, tk); err == nil {
		t.Error("a name with a control character was minted")
	}
}

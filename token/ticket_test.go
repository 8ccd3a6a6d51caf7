package token

import (
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/golang-jwt/jwt/v5"
	"github.com/ptyhost/ptyhost/attachwire"
)

func ticket() Ticket {
	c := viewerClaims(attachwire.RoleDriver)
	return Ticket{SessionID: c.SessionID, RoomID: c.RoomID, UserID: c.UserID, Role: c.Role, OrgID: c.OrgID,
		IssuedAt: testNow.Unix(), ExpiresAt: testNow.Add(30 * time.Second).Unix(),
		Audience: TicketAudience, JTI: c.JTI, TID: "tid-1"}
}

func ticketMap(tk Ticket) jwt.MapClaims {
	return jwt.MapClaims{"sessionId": tk.SessionID, "roomId": tk.RoomID, "userId": tk.UserID, "role": string(tk.Role),
		"orgId": tk.OrgID, "iat": tk.IssuedAt, "exp": tk.ExpiresAt, "aud": tk.Audience, "jti": tk.JTI, "tid": tk.TID}
}

func ticketRefused(t *testing.T, v *Verifier, raw, want string) {
	t.Helper()
	tk, err := v.VerifySSETicket(raw)
	if err == nil {
		t.Fatalf("VerifySSETicket accepted %+v", tk)
	}
	var ve *VerifyError
	if !errors.As(err, &ve) || !errors.Is(err, ErrInvalid) {
		t.Fatalf("error %v is not a *VerifyError wrapping ErrInvalid", err)
	}
	if !strings.Contains(ve.Reason, want) {
		t.Errorf("reason %q, want it to contain %q", ve.Reason, want)
	}
	assertNoTokenText(t, err.Error(), raw)
}

func TestSSETicketRoundTrip(t *testing.T) {
	pub, priv := newKey(t)
	v := newVerifier(t, pub)
	raw, err := MintSSETicket(priv, ticket())
	if err != nil {
		t.Fatal(err)
	}
	got, err := v.VerifySSETicket(raw)
	if err != nil {
		t.Fatal(err)
	}
	if got != ticket() {
		t.Errorf("got %+v, want %+v", got, ticket())
	}
	if c := got.Claims(); c.JTI != got.JTI || c.UserID != got.UserID || c.Role != got.Role {
		t.Errorf("Claims() = %+v", c)
	}
	// A ticket is not an attach token.
	refused(t, v, raw, "unknown member")

	named := ticket()
	named.Name, named.Invite = "Ada", "inv-1"
	raw, err = MintSSETicket(priv, named)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := v.VerifySSETicket(raw); err != nil || got != named || got.Claims().Name != "Ada" || got.Claims().Invite != "inv-1" {
		t.Fatalf("named ticket: %+v, %v", got, err)
	}
}

func TestSSETicketRefusals(t *testing.T) {
	pub, priv := newKey(t)
	v := newVerifier(t, pub)
	tk := ticket()

	long := ticketMap(tk)
	long["exp"] = tk.IssuedAt + 61
	ticketRefused(t, v, signRaw(t, jwt.SigningMethodEdDSA, priv, long), "longer than 60 s")

	noTID := ticketMap(tk)
	delete(noTID, "tid")
	ticketRefused(t, v, signRaw(t, jwt.SigningMethodEdDSA, priv, noTID), "tid missing")

	relayAud := ticketMap(tk)
	relayAud["aud"] = Audience
	ticketRefused(t, v, signRaw(t, jwt.SigningMethodEdDSA, priv, relayAud), `aud is not "relay-sse-ticket"`)

	host := ticketMap(tk)
	host["role"] = "host"
	ticketRefused(t, v, signRaw(t, jwt.SigningMethodEdDSA, priv, host), "not driver or viewer")

	epochd := ticketMap(tk)
	epochd["epoch"] = 1
	ticketRefused(t, v, signRaw(t, jwt.SigningMethodEdDSA, priv, epochd), "unknown member")

	longName := ticketMap(tk)
	longName["name"] = strings.Repeat("n", MaxNameBytes+1)
	ticketRefused(t, v, signRaw(t, jwt.SigningMethodEdDSA, priv, longName), "name longer than 64 bytes")
	numName := ticketMap(tk)
	numName["name"] = 7
	ticketRefused(t, v, signRaw(t, jwt.SigningMethodEdDSA, priv, numName), "name")

	expired := ticketMap(tk)
	expired["iat"], expired["exp"] = testNow.Unix()-50, testNow.Unix()-10
	ticketRefused(t, v, signRaw(t, jwt.SigningMethodEdDSA, priv, expired), "expired")

	_, other := newKey(t)
	ticketRefused(t, v, signRaw(t, jwt.SigningMethodEdDSA, other, ticketMap(tk)), "signature")
	ticketRefused(t, v, signRaw(t, jwt.SigningMethodHS256, []byte("k"), ticketMap(tk)), "EdDSA")

	// An attach token is not a ticket.
	ticketRefused(t, v, mint(t, priv, viewerClaims(attachwire.RoleViewer)), `aud is not "relay-sse-ticket"`)
	// And an attach token carrying a tid is refused as one.
	withTID := claimMap(viewerClaims(attachwire.RoleViewer))
	withTID["tid"] = "x"
	refused(t, v, signRaw(t, jwt.SigningMethodEdDSA, priv, withTID), "unknown member")

	bad := tk
	bad.TID = ""
	if _, err := MintSSETicket(priv, bad); !errors.Is(err, ErrClaims) {
		t.Errorf("MintSSETicket without tid: %v, want ErrClaims", err)
	}
}

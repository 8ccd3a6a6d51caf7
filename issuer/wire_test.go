package issuer

import (
	"errors"
	"strings"
	"testing"
)

const goodChallenge = "AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA"

func TestParseLoginRequestRefusals(t *testing.T) {
	ok := `{"challenge":"` + goodChallenge + `","publicKey":"ssh-ed25519 AAAA","signature":{"format":"ssh-ed25519","blob":"AAAA"}}`
	if _, err := ParseLoginRequest([]byte(ok)); err != nil {
		t.Fatalf("well-formed login refused: %v", err)
	}
	for _, tc := range []struct {
		name, body string
		code       Code
	}{
		{"empty", ``, CodeBadRequest},
		{"not an object", `[]`, CodeBadRequest},
		{"unknown member", strings.Replace(ok, `"challenge"`, `"extra":1,"challenge"`, 1), CodeBadRequest},
		{"trailing data", ok + `{}`, CodeBadRequest},
		{"no challenge", `{"publicKey":"k","signature":{"format":"f","blob":"AAAA"}}`, CodeBadRequest},
		{"short challenge", strings.Replace(ok, goodChallenge, "AAAA", 1), CodeChallengeInvalid},
		{"padded challenge", strings.Replace(ok, goodChallenge, goodChallenge+"=", 1), CodeChallengeInvalid},
		{"no key", strings.Replace(ok, `"ssh-ed25519 AAAA"`, `""`, 1), CodeBadRequest},
		{"no format", strings.Replace(ok, `"format":"ssh-ed25519"`, `"format":""`, 1), CodeBadRequest},
		{"blob not base64", strings.Replace(ok, `"blob":"AAAA"`, `"blob":"***"`, 1), CodeBadRequest},
		{"wrong type", strings.Replace(ok, `"blob":"AAAA"`, `"blob":4`, 1), CodeBadRequest},
		{"huge", `{"challenge":"` + strings.Repeat("A", MaxBodyBytes) + `"}`, CodeBadRequest},
	} {
		_, err := ParseLoginRequest([]byte(tc.body))
		var e *Error
		if !errors.As(err, &e) || e.Code != tc.code {
			t.Errorf("%s: %v, want %s", tc.name, err, tc.code)
		}
	}
}

func TestParseInviteRequestRefusals(t *testing.T) {
	if r, err := ParseInviteRequest([]byte(`{"role":"driver","ttlSeconds":60,"maxHolders":3}`)); err != nil || r.MaxHolders != 3 {
		t.Fatalf("%+v %v", r, err)
	}
	for _, body := range []string{
		`{"role":"host","ttlSeconds":60}`, `{"role":"viewer","ttlSeconds":0}`, `{"role":"viewer","ttlSeconds":604801}`,
		`{"role":"viewer","ttlSeconds":60,"maxHolders":-1}`, `{"role":"viewer","ttlSeconds":1.5}`, `{"role":"viewer"`,
	} {
		if _, err := ParseInviteRequest([]byte(body)); !errors.Is(err, ErrBadRequest) {
			t.Errorf("%s: %v, want bad-request", body, err)
		}
	}
}

func TestParseRedeemRequest(t *testing.T) {
	r, err := ParseRedeemRequest([]byte(`{"room":"abcdefgh2345","secret":"AAAAAAAAAAAAAAAAAAAAAA","name":"  Zoë \t"}`))
	if err != nil || r.Name != "Zoë" {
		t.Fatalf("%+v %v", r, err)
	}
	for _, body := range []string{
		`{"room":"ABCDEFGH2345","secret":"AAAAAAAAAAAAAAAAAAAAAA","name":"a"}`,
		`{"room":"abcdefgh234","secret":"AAAAAAAAAAAAAAAAAAAAAA","name":"a"}`,
		`{"room":"abcdefgh2345","secret":"AAAAAAAAAAAAAAAAAAAAA","name":"a"}`,
		`{"room":"abcdefgh2345","secret":"AAAAAAAAAAAAAAAAAAAAA=","name":"a"}`,
		`{"room":"abcdefgh2345","secret":"AAAAAAAAAAAAAAAAAAAAAA","name":"   "}`,
		`{"room":"abcdefgh2345","secret":"AAAAAAAAAAAAAAAAAAAAAA","name":"a\u0007b"}`,
		`{"room":"abcdefgh2345","secret":"AAAAAAAAAAAAAAAAAAAAAA","name":"a\u202eb"}`,
		`{"room":"abcdefgh2345","secret":"AAAAAAAAAAAAAAAAAAAAAA","name":"` + strings.Repeat("x", 65) + `"}`,
		`{"room":"abcdefgh2345","secret":"AAAAAAAAAAAAAAAAAAAAAA"}`,
	} {
		if _, err := ParseRedeemRequest([]byte(body)); !errors.Is(err, ErrBadRequest) {
			t.Errorf("%s: %v, want bad-request", body, err)
		}
	}
}

// FuzzParseLoginRequest: the login parser refuses with an issuer error or
// accepts a body with every member in shape.
func FuzzParseLoginRequest(f *testing.F) {
	f.Add([]byte(`{"challenge":"` + goodChallenge + `","publicKey":"ssh-ed25519 AAAA","signature":{"format":"ssh-ed25519","blob":"AAAA"}}`))
	f.Add([]byte(`{"challenge":1}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		r, err := ParseLoginRequest(b)
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || e.Status != 0 && e.Status < 400 {
				t.Fatalf("refusal %v is not an issuer error", err)
			}
			return
		}
		if !validChallenge(r.Challenge) || r.PublicKey == "" || r.Signature.Format == "" {
			t.Fatalf("accepted %+v", r)
		}
	})
}

// FuzzParseRedeemRequest: the redeem and invite parsers refuse or accept
// only what is in shape.
func FuzzParseRedeemRequest(f *testing.F) {
	f.Add([]byte(`{"room":"abcdefgh2345","secret":"AAAAAAAAAAAAAAAAAAAAAA","name":"ann"}`))
	f.Add([]byte(`{"role":"viewer","ttlSeconds":60,"maxHolders":0}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		if r, err := ParseRedeemRequest(b); err == nil {
			if !ValidRoomID(r.Room) || len(r.Secret) != 22 || r.Name == "" || len(r.Name) > 64 || strings.TrimSpace(r.Name) != r.Name {
				t.Fatalf("accepted %+v", r)
			}
		}
		if r, err := ParseInviteRequest(b); err == nil {
			if r.TTLSeconds <= 0 || r.MaxHolders < 0 || (r.Role != "viewer" && r.Role != "driver") {
				t.Fatalf("accepted %+v", r)
			}
		}
	})
}

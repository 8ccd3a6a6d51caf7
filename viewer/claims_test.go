package viewer

import (
	"encoding/base64"
	"errors"
	"testing"
)

func jws(payload string) string {
	return "eyJhbGciOiJFZERTQSJ9." + base64.RawURLEncoding.EncodeToString([]byte(payload)) + ".c2ln"
}

func TestPeekClaims(t *testing.T) {
	for _, tc := range []struct {
		name, tok string
		jti       string
		ok        bool
	}{
		{"good", jws(`{"sessionId":"s","role":"viewer","jti":"j1","userId":"u"}`), "j1", true},
		{"two parts", "a.b", "", false},
		{"bad base64", "a.!!!.c", "", false},
		{"not json", jws("nope"), "", false},
		{"too long", jws(`{"jti":"` + string(make([]byte, maxTokenBytes)) + `"}`), "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			c, err := peekClaims(tc.tok)
			if tc.ok != (err == nil) || c.JTI != tc.jti {
				t.Fatalf("peekClaims = %+v, %v", c, err)
			}
			if err != nil && !errors.Is(err, ErrConfig) {
				t.Fatalf("error %v does not match ErrConfig", err)
			}
		})
	}
}

func FuzzPeekClaims(f *testing.F) {
	f.Add(jws(`{"sessionId":"s","role":"driver","jti":"j","userId":"u"}`))
	f.Add("a.b.c")
	f.Add("..")
	f.Add(jws(`{"jti":1}`))
	f.Fuzz(func(t *testing.T, tok string) {
		c, err := peekClaims(tok)
		if err != nil && (c != tokenClaims{}) {
			t.Fatalf("claims %+v with error %v", c, err)
		}
		if err != nil && !errors.Is(err, ErrConfig) {
			t.Fatalf("error %v does not match ErrConfig", err)
		}
	})
}

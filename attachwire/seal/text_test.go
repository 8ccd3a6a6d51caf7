package seal

import (
	"errors"
	"strings"
	"testing"
)

func TestSealText(t *testing.T) {
	k, err := GenerateKey()
	if err != nil {
		t.Fatal(err)
	}
	r := NewRoom(k, "room-1")
	s := r.SealText(TextProposal, "p1", "rm -rf build\r")
	if strings.Contains(s, "rm") || len(s) != SealedTextLen(len("rm -rf build\r")) {
		t.Fatalf("sealed %q", s)
	}
	if got, err := r.OpenText(TextProposal, "p1", s); err != nil || got != "rm -rf build\r" {
		t.Fatalf("opened %q, %v", got, err)
	}
	if s2 := r.SealText(TextProposal, "p1", "rm -rf build\r"); s2 == s {
		t.Fatal("two seals of one text are equal: the nonce repeated")
	}
	other, _ := GenerateKey()
	for name, open := range map[string]func() (string, error){
		"another id":   func() (string, error) { return r.OpenText(TextProposal, "p2", s) },
		"another kind": func() (string, error) { return r.OpenText(TextDecision, "p1", s) },
		"another room": func() (string, error) { return NewRoom(k, "room-2").OpenText(TextProposal, "p1", s) },
		"another key":  func() (string, error) { return NewRoom(other, "room-1").OpenText(TextProposal, "p1", s) },
		"not base64":   func() (string, error) { return r.OpenText(TextProposal, "p1", "ls -l") },
		"short":        func() (string, error) { return r.OpenText(TextProposal, "p1", "AAAA") },
		"a bit flipped": func() (string, error) {
			b := []byte(s)
			b[len(b)/2] ^= 1
			if b[len(b)/2] == '_' || b[len(b)/2] == '-' {
				b[len(b)/2] = 'A'
			}
			return r.OpenText(TextProposal, "p1", string(b))
		},
	} {
		if got, err := open(); !errors.Is(err, ErrOpen) {
			t.Errorf("%s: opened %q, %v", name, got, err)
		}
	}
	if r.SealText(TextReason, "p1", "") != "" {
		t.Error("an empty reason is sealed")
	}
	if got, err := r.OpenText(TextReason, "p1", ""); got != "" || err != nil {
		t.Errorf("an empty reason opens as %q, %v", got, err)
	}
}

func FuzzOpenText(f *testing.F) {
	k, _ := ParseKey(strings.Repeat("A", 43))
	r := NewRoom(k, "room")
	f.Add("p1", r.SealText(TextProposal, "p1", "ls\r"))
	f.Add("", "@@")
	f.Fuzz(func(t *testing.T, id, sealed string) {
		got, err := r.OpenText(TextProposal, id, sealed)
		if err == nil && r.SealText(TextProposal, id, got) == "" && got != "" {
			t.Fatal("an opened text does not seal")
		}
		if err != nil && !errors.Is(err, ErrOpen) {
			t.Fatalf("error %v does not wrap ErrOpen", err)
		}
	})
}

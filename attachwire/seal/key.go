package seal

import (
	"crypto/cipher"
	"crypto/hkdf"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"

	"golang.org/x/crypto/chacha20poly1305"
)

// Sizes of the extension's fixed parts, in bytes.
const (
	// KeySize is a room key's length.
	KeySize = 32
	// KeyIDSize is a key id's length.
	KeyIDSize = 8
	// NonceSize is a sealed box's nonce (XChaCha20-Poly1305's 192 bits).
	NonceSize = chacha20poly1305.NonceSizeX
	// Overhead is what sealing adds to a field: the nonce and the tag.
	Overhead = NonceSize + chacha20poly1305.Overhead
)

// HKDF info strings: the AEAD key and the key id are both derived from
// the room key, so a link needs to carry only the key.
const (
	infoAEAD  = "ptyhost e2e v1 aead key"
	infoKeyID = "ptyhost e2e v1 key id"
)

// ErrKey reports a room key that is not KeySize bytes, or a key text that
// is not one in unpadded base64url.
var ErrKey = errors.New("seal: a room key is 32 bytes, written as 43 characters of unpadded base64url")

// KeyID names a room key without revealing it: the relay compares the key
// ids a host and its viewers state at subscribe.
type KeyID [KeyIDSize]byte

// String returns the id in unpadded base64url (11 characters), the form a
// subscribe carries.
func (id KeyID) String() string { return base64.RawURLEncoding.EncodeToString(id[:]) }

// ParseKeyID reads the form String writes.
func ParseKeyID(s string) (KeyID, error) {
	var id KeyID
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil || len(b) != KeyIDSize {
		return id, fmt.Errorf("seal: key id %q is not 8 bytes of unpadded base64url", cut(s, 32))
	}
	copy(id[:], b)
	return id, nil
}

// Key is a room key with what is derived from it. Encode gives the key
// itself (for a link's fragment); String names only its id, so a key
// printed by mistake reveals nothing.
type Key struct {
	raw  [KeySize]byte
	id   KeyID
	aead cipher.AEAD
}

// GenerateKey returns a new random room key.
func GenerateKey() (*Key, error) {
	var raw [KeySize]byte
	if _, err := rand.Read(raw[:]); err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	return NewKey(raw[:])
}

// NewKey returns the room key raw (KeySize bytes, copied).
func NewKey(raw []byte) (*Key, error) {
	if len(raw) != KeySize {
		return nil, ErrKey
	}
	k := &Key{}
	copy(k.raw[:], raw)
	ak, err := hkdf.Key(sha256.New, raw, nil, infoAEAD, chacha20poly1305.KeySize)
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	id, err := hkdf.Key(sha256.New, raw, nil, infoKeyID, KeyIDSize)
	if err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	copy(k.id[:], id)
	if k.aead, err = chacha20poly1305.NewX(ak); err != nil {
		return nil, fmt.Errorf("seal: %w", err)
	}
	return k, nil
}

// ParseKey reads a key in the form Encode writes, as a link's fragment
// carries it.
func ParseKey(s string) (*Key, error) {
	if len(s) != base64.RawURLEncoding.EncodedLen(KeySize) {
		return nil, ErrKey
	}
	b, err := base64.RawURLEncoding.DecodeString(s)
	if err != nil {
		return nil, ErrKey
	}
	return NewKey(b)
}

// ID returns the key's id.
func (k *Key) ID() KeyID { return k.id }

// Encode returns the key in unpadded base64url (43 characters). It is
// the secret itself.
func (k *Key) Encode() string { return base64.RawURLEncoding.EncodeToString(k.raw[:]) }

// String names the key by its id ("room key 3q2-7wAAAAA"), never the
// key itself.
func (k *Key) String() string { return "room key " + k.id.String() }

// Equal reports whether k and o are the same key, in constant time.
func (k *Key) Equal(o *Key) bool {
	return k != nil && o != nil && subtle.ConstantTimeCompare(k.raw[:], o.raw[:]) == 1
}

// cut bounds s for an error message.
func cut(s string, n int) string {
	if len(s) > n {
		return s[:n] + "…"
	}
	return s
}

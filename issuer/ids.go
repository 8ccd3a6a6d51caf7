package issuer

import (
	"crypto/rand"
	"crypto/sha256"
	"encoding/base32"
	"encoding/base64"
	"encoding/hex"
)

// RoomIDLen is the length of a room id the issuer makes: 12 characters of
// lowercase base32 (60 bits), short enough for a link, too many to guess
// (a room id is no credential: the invite secret is).
const RoomIDLen = 12

var lowerBase32 = base32.NewEncoding("abcdefghijklmnopqrstuvwxyz234567").WithPadding(base32.NoPadding)

// randomID returns n characters of lowercase base32 from crypto/rand.
func randomID(n int) string {
	b := make([]byte, (n*5+7)/8)
	rand.Read(b)
	return lowerBase32.EncodeToString(b)[:n]
}

// NewRoomID returns a fresh room id.
func NewRoomID() string { return randomID(RoomIDLen) }

// ValidRoomID reports whether s has the form of an issuer's room id.
func ValidRoomID(s string) bool { return validBase32(s, RoomIDLen) }

// inviteIDLen is an invite id's length: ids are not secret, only unique
// within a room.
const inviteIDLen = 10

// ValidInviteID reports whether s has the form of an invite id.
func ValidInviteID(s string) bool { return validBase32(s, inviteIDLen) }

func validBase32(s string, n int) bool {
	if len(s) != n {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if (c < 'a' || c > 'z') && (c < '2' || c > '7') {
			return false
		}
	}
	return true
}

// newSecret returns a fresh invite secret (16 bytes, base64url) and the
// hash the store keeps of it.
func newSecret() (secret, hash string) {
	var b [secretBytes]byte
	rand.Read(b[:])
	secret = base64.RawURLEncoding.EncodeToString(b[:])
	return secret, hashSecret(secret)
}

// hashSecret is what the store keeps of a secret: its SHA-256 in hex. A
// 128-bit random secret needs no slow hash: there is nothing to guess
// offline that is cheaper than guessing the secret.
func hashSecret(secret string) string {
	h := sha256.Sum256([]byte(secret))
	return hex.EncodeToString(h[:])
}

// newGuestID returns a guest's userId: "guest-" and 8 random characters.
func newGuestID() string { return "guest-" + randomID(8) }

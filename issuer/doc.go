// Package issuer makes a relay its own issuer of attach tokens (issuer
// mode, docs/relay.md): the people who may share are the holders of SSH
// keys listed in an OpenSSH authorized_keys file, and the people they
// share with hold invites, short links that the relay exchanges for an
// attach token per connection.
//
// Server is the HTTP API a relay mounts at PathPrefix. A sharer's client
// asks for a challenge, signs LoginMessage with its SSH key (ssh-agent or
// a key file: FindSigner) and gets a session; with it, it makes rooms it
// owns, host tokens for them (one per dial, five minutes each) and
// invites. An invite's secret (128 random bits) is shown once; the store
// keeps only its SHA-256 and a redemption compares hashes in constant
// time. Redeeming needs no account: the secret, the room and a display
// name give a viewer or driver token with its own jti, the guest's name
// and the invite's id (token claims name and inv), which the relay checks
// at admission and uses to close the invite's legs when it is revoked.
//
// Client is the Go side of the API; its errors are *Error values whose
// Code matches the sentinels (ErrUnknownKey, ErrRevoked, …) with
// errors.Is. Store is where rooms and invites live: MemStore for a relay
// on its own; a relay in a cluster keeps them in NATS.
//
// Users are loaded from authorized_keys (LoadUsers): the user's name is
// the key's comment, the file's name in a directory of per-user files, or
// a users file's mapping of fingerprints to names. A key whose options
// limit where or when it is good (from, expiry-time, principals,
// cert-authority) is refused at load rather than let in unrestricted.
package issuer

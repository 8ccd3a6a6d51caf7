// Package token mints and verifies interactive-attach-v1 attach tokens
// (spec §15): EdDSA (Ed25519) JWTs whose claim set says which room a leg
// may join (sessionId = roomId, scoped by orgId), in which role (host,
// driver, viewer), as whom (userId, or the host's epoch), until when (exp),
// under which nonce (jti).
//
// # Model
//
// The platform holds an Ed25519 private key and mints a short-lived token
// per connection (Mint, NewJTI); the relay holds only public keys, several
// during a rotation, and checks every token with a Verifier. Keys live in
// PEM files: PKCS#8 "PRIVATE KEY" and PKIX "PUBLIC KEY", the formats
// openssl writes (WriteKeyFiles, ReadPrivateKeyFile, ReadPublicKeyFile).
//
// Verification is strict by design, through github.com/golang-jwt/jwt/v5
// with its method allow-list, audience, required-exp and leeway options:
//   - alg exactly "EdDSA"; none, HS*, RS*, PS*, ES* and anything else are
//     refused before a key is consulted, so a public key can never be
//     mistaken for an HMAC secret;
//   - the claim set holds exactly the §15 members; a present nbf (§15 has
//     deliberately none) or any other member is refused, as is a null
//     member, a string where a string is due that is not one, and a
//     numeric claim (epoch, iat, exp) that is not a plain JSON integer;
//     member names match exactly (encoding/json alone would take "ROLE"
//     for "role"), and a member given twice is refused (RFC 7519 §4
//     allows that or keeping the last; refusing leaves no two readers
//     to disagree);
//   - the compact form holds only base64url characters and dots (a base64
//     decoder would skip a newline in the signature);
//   - aud is the string "relay" (an array, even ["relay"], is refused);
//   - exp is required and allowed at most MaxLeeway (5 s) of clock skew;
//     that leeway applies to exp alone in the library's checks;
//   - iat is not checked against the clock by the spec (it is
//     "observability only"), but a token issued more than the leeway in
//     the future is refused: it comes from a minter whose clock is off,
//     and its exp would otherwise outlive its intended lifetime by that
//     offset;
//   - the shape by role (Claims.Validate).
//
// The relay's other token rules (jti admission, room and org binding
// against the request, subscribe.epoch) need the room's state and live in
// the relay.
//
// # Errors
//
// Every refusal is a *VerifyError wrapping ErrInvalid (and ErrExpired for
// an expired token). Its message names the rule and never contains the
// token or any of its claims, so it may be logged and returned to the
// client.
//
// # Concurrency
//
// A Verifier is immutable after NewVerifier and safe for concurrent use.
// The functions hold no state.
package token

// Package share is the machinery of `ptyhost share`: it finds or starts a
// relay, mints the tokens that reach it, and carries a session there.
//
// # Model
//
// Start takes a Config. With a RelayURL it targets a relay someone runs,
// whose signing key the caller holds. Without one it starts an embedded
// relay (package relay) on 127.0.0.1 with a fresh Ed25519 key that lives
// in memory only, so one process on one machine hosts a shareable
// session. Either way Start mints the links: the room's attach URL and
// the browser page's URL, each with a viewer and a driver token of its own
// (the relay admits one live connection per token).
// Share.Carry then runs attachclient.RunHost for the session, minting a
// fresh host token (new jti, short life) before every dial.
//
// # Tokens
//
// The links' tokens are minted once and live for Config.LinkTTL (24 h
// unless set): a viewer re-presents its token on every reconnect (the
// relay admits an identity-matched jti again), so the token must outlive
// the session for a dropped viewer to come back; a relay only checks
// expiry at a dial, so a connected viewer is never cut at expiry. The
// host's tokens live HostTokenTTL (5 min), enough for one dial, since
// RunHost asks for a new one each time.
//
// # The sharer's say
//
// Carry passes the relay's presence and pen controls to Config.OnRoom and
// the leg's state to Config.OnLink. A Console (fed by both) keeps People,
// what the sharer knows of the room, puts joins, leaves and the pen on
// the status line of an attachui.Display, and reads the prefix menu out
// of the sharer's keys: who is here, kick, revoke a link, take the pen
// back, read-only, stop sharing. The host's controls go out through
// Share.Controls; Share.Revoker ends links. The links Start mints are
// revoked by a kick of their token's jti, which the relay then refuses
// until the token expires; a share through a relay's issuer sets a
// Revoker of its own that revokes invites.
//
// When the pen comes back to the sharer (released, taken back, revoked by
// read-only, or its holder gone), the Console asks for the sharer's
// terminal size at once: the relay only ever sends a remote holder's.
//
// # Concurrency
//
// A Share is safe for concurrent use; Close stops the embedded relay (if
// any) and returns after its goroutine has exited. Carry runs on the
// caller's goroutine and owns what RunHost starts.
package share

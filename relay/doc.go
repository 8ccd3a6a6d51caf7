// Package relay is the reference relay of interactive-attach-v1: the one
// place a host (dialling out) and its viewers (dialling in) both reach.
//
// # Model
//
// A Relay is an http.Handler. Every leg is a WebSocket on
// /v1/rooms/<roomId> with subprotocol interactive-attach-v1 and an attach
// token (package token): in the Authorization header, or for browsers in a
// "bearer.<base64url>" subprotocol (never for hosts). Rooms are keyed by
// (orgId, sessionId) and created by their first valid token. A room holds
// at most one host leg, bound by the (sessionId, epoch) compare-and-swap;
// its frames are sanitized once on ingest (Driver profile, one stateful
// sanitizer per room generation) and kept, encoded, in one ring bounded in
// bytes. Viewers are cursors into that ring, woken by a broadcast, so
// publishing costs the same for one viewer or a thousand and no frame is
// copied per viewer. A viewer that cannot resume from the ring, or lags more
// than ViewerQueueBytes, starts again from a snapshot whose tail is still in
// the ring.
//
// The pen (who may send Input), presence, room_state, the host's input
// queue (never lossy: a full queue stops reading the driver), keepalive,
// limits and the planned restart (Shutdown) are described on the types and
// in docs/relay.md, with every policy choice the protocol leaves open.
// Kill is the operator's way to end a room's session: it reports delivered
// only once a live host leg took the kill control. Input written to a host
// leg that ends is written again to the next leg of the epoch, from a
// bounded window, when the host declares attachwire.InputDedupHeader (docs/relay.md,
// "Redelivery"); a room's penGeneration starts at the wall clock, so the
// (userId, penGeneration, inputSeq) triples a host dedups on never repeat.
//
// # Degraded lane
//
// Where WebSocket is broken by a proxy, a leg may ride Server-Sent Events
// down and batched POSTs up instead (…/sse and …/input for viewers,
// …/host/sse and …/host/output for hosts; docs/relay.md, "The degraded
// lane"). Such a leg is the same room leg with another carrier; viewers see
// room_state degraded while the host rides it.
//
// # Cluster
//
// With Config.NATS set the relay is one node of a cluster meeting through
// NATS (docs/relay.md, "Cluster"): the node holding a room's host owns the
// room (a JetStream key-value entry changed only by compare-and-swap, so
// the epoch CAS holds across nodes), publishes each sanitized frame once,
// and decides pen, presence and room_state; a node with viewers of a room
// it does not own follows it with its own ring and registers its legs with
// the owner. Without it the relay is standalone.
//
// # Concurrency
//
// A Relay is safe for concurrent use. Each leg runs in a goroutine of its
// own, started by its request's handler, plus a writer it joins before it
// ends; one keepalive loop pings every leg; legs, that loop and room
// timers are joined by Close. Nothing a viewer does blocks the host or
// another viewer.
//
// # Limits
//
// Messages: 16 MiB from a host, 1 MiB from a driver or viewer. Ring: 4 MiB
// a room. Viewer lag: 1 MiB. Rooms: 10,000; viewers: 1,000 a room; dials:
// 20 a second per client address. All configurable (Config).
package relay

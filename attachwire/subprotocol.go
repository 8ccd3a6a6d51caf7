package attachwire

// Subprotocol is the WebSocket subprotocol that names interactive-attach-v1
// (docs/protocol.md §7): clients offer it, and a relay echoes it or refuses
// the upgrade. Every WebSocket carrier of the module uses this one value.
const Subprotocol = "interactive-attach-v1"

// InputDedupHeader is the request header with which a host declares, on
// its WebSocket dial and on its host SSE GET, that it deduplicates relay
// Input by (userId, penGeneration, inputSeq) on every carrier, not only on
// the degraded lane where the protocol requires it. Its one value is
// InputDedupAnyCarrier. A relay that knows the header replays Input only
// to a host that declared it and answers with the same header and value
// (on the 101 or the 200), so the host knows the relay replays and never
// reuses a triple; a relay that does not know it ignores it, as any
// header it does not use, and the host then dedups on the lane only.
const InputDedupHeader = "Attach-Input-Dedup"

// InputDedupAnyCarrier is InputDedupHeader's value.
const InputDedupAnyCarrier = "any-carrier"

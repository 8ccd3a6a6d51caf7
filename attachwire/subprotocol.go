package attachwire

// Subprotocol is the WebSocket subprotocol that names interactive-attach-v1
// (docs/protocol.md §7): clients offer it, and a relay echoes it or refuses
// the upgrade. Every WebSocket carrier of the module uses this one value.
const Subprotocol = "interactive-attach-v1"

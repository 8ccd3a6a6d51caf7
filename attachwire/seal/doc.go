// Package seal is the end-to-end encryption of interactive-attach-v1's
// sealed rooms (docs/protocol.md, section 8): the host and the people it
// shares with hold a room key the relay never sees, and the parts of each
// frame the relay never needs to read travel sealed with
// XChaCha20-Poly1305.
//
// What is sealed: an Output frame's bytes, an Input frame's data, a
// Marker's label, an Exit's code and signal, and a Snapshot's screen.
// Everything the relay routes on stays readable (frame headers, a
// Snapshot's atSeq, format and epoch, an Input's inputSeq, penGeneration
// and userId, Resize sizes, every Control) and is bound into the
// associated data together with the room, the frame type and the key id,
// so a relay that alters, reorders, replays at another position or
// splices between rooms makes a frame that fails to open.
//
// Every seal draws a fresh random 192-bit nonce: numbers derived from the
// frame would repeat, since post-Exit and resync snapshots all carry seq
// 0, pending input is renumbered after a relay restart and a host may
// send a seq again after a ring-miss.
//
// A Key is made once per room (GenerateKey) and carried in a link's
// fragment (Key.String, ParseKey); a Room binds it to one session id and
// seals and opens frames. Check is what a relay can verify of a sealed
// frame without the key: that its readable parts are well formed.
//
// The package holds no connection and starts no goroutine; a Room is safe
// for concurrent use.
package seal

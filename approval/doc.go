// Package approval holds input that must be approved before it reaches a
// program: the input proposals of docs/protocol.md §6.
//
// A Gate stands between a proposer (an agent typing through `ptyhost mcp`,
// or any code holding a session) and the program's terminal. Propose
// announces the input to the room, where the pen holder sees it in the
// browser page or in `ptyhost attach` and approves, edits or rejects it;
// the decision comes back through the relay to Decide, and Propose returns
// the outcome. Nothing is written before an approval: the gate is on the
// host, the one place input enters the program, so a relay or viewer that
// does not know the extension can only let a proposal expire. Input that
// matches an auto-approve rule is written at once. Every outcome is
// recorded (Config.Record: a marker in the session's stream, which the
// relay's recording keeps) with who proposed and who decided.
package approval

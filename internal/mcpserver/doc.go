// Package mcpserver is `ptyhost mcp`: a Model Context Protocol server that
// lets an agent run interactive programs in real terminals. It holds any
// number of termdriver sessions and offers them as tools: start, screen,
// type, wait, output, resize, stop and list (docs/agents.md is their
// reference).
//
// # Compact by design
//
// An agent pays for every token it reads, so a tool never repeats a screen
// the client has already been sent: the server remembers, per session, the
// seq of the last screen it returned, and a screen or wait result whose
// screen has not changed since says so in one line. A client that keeps
// screens can ask for only the rows changed since one (since). Each result
// carries its screen twice in form only: as plain text for the model (the
// cursor marked with CursorMark) and as the same text in the structured
// result for programs.
//
// # Errors
//
// Every mistake an agent can make (an unknown session, a program not
// found, a bad pattern or key name, input to a program that has exited)
// is a tool error whose message says what to do instead; nothing an agent
// sends ends the server. A wait that times out is not an error: it returns
// the screen with reason "timeout".
//
// # Sharing
//
// A Sharer, when given, adds a share tool that publishes a session so
// people can watch or drive it; the server itself opens no network
// connection.
//
// # Lifetime
//
// Run serves one client until it disconnects or ctx ends, then stops every
// session the server started.
package mcpserver

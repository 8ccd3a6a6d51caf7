// Package sanitize makes a hostile terminal output stream safe to show on a
// viewer's real terminal.
//
// The model is parse fully, allow by list, emit canonically. A Sanitizer runs
// a complete VT500-style parser (ground, escape, control sequence, device
// control, operating system command and SOS/PM/APC string states) over the
// bytes a program wrote, decodes UTF-8 statefully, treats C1 controls (raw
// 0x80–0x9F bytes outside valid UTF-8, and U+0080–U+009F) as the controls
// they are, and emits only text and allow-listed sequences, re-serialized in
// 7-bit form from their parsed parts (input already byte for byte in that
// form is found by a scan and copied whole: the same bytes, sooner).
// Nothing it emits can make a terminal
// answer a query, generate input, fetch, copy, notify or get stuck: every
// query, every device control string, every APC/PM/SOS string and every
// side-effecting OSC is dropped whole. Anything unknown, malformed, over a
// cap, or unterminated is dropped too. The allowlist follows the project's
// sanitizer policy: the Viewer profile is for read-only mirrors, the Driver
// profile adds the input-generating modes (mouse, focus, bracketed paste,
// application keypad) the one terminal whose keys reach the program needs.
//
// Output is independent of how the input is split into calls, and
// idempotent: sanitizing sanitized output changes nothing.
//
// Limits (Options fields, zero meaning the default): a control sequence is at
// most 256 bytes and 32 parameters, a title 1 KiB, an OSC 8 URI 2 KiB, any
// buffered string 64 KiB. REP repeats at most cols×rows characters (80×24
// unless configured) and every other count is at most 1000. Memory per
// Sanitizer is bounded by these caps; a stream of any length is processed in
// that memory.
//
// Output length is at most 6×len(input)+16 bytes for one call on a fresh
// Sanitizer (the worst case is RIS, two bytes rewritten into eleven).
//
// Concurrency: a Sanitizer or Writer holds the parser state of one stream.
// Use one per stream; neither is safe for concurrent use.
package sanitize

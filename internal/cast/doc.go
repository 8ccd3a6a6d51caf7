// Package cast writes and reads asciinema v2 recordings ("casts").
//
// A cast is a JSON header line followed by one JSON array per event:
// [seconds, code, data], where code is "o" (output), "i" (input), "r"
// (resize, data "COLSxROWS") or "m" (marker). Output reaches a Writer in
// arbitrary chunks, so it decodes UTF-8 across chunk boundaries: a rune
// split between two writes is recorded whole in the later event, and bytes
// that can never form valid UTF-8 become U+FFFD, one per byte, the same way
// however the stream was split.
//
// A Writer or Reader is not safe for concurrent use.
package cast

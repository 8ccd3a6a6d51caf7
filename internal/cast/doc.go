// Package cast writes and reads asciicast recordings ("casts"), versions
// 2 and 3, and converts between them.
//
// A cast is a JSON header line followed by one JSON array per event:
// [time, code, data], where code is "o" (output), "i" (input), "r"
// (resize, data "COLSxROWS"), "m" (marker) or, in v3 only, "x" (exit,
// data the status). In v2 the time is seconds since the start and the
// header names the size width and height; in v3 it is seconds since the
// previous event, the header holds a term object (cols, rows, type), and
// lines starting with "#" are comments. A Reader gives both versions'
// events with times since the start.
//
// Output reaches a Writer in arbitrary chunks, so it decodes UTF-8 across
// chunk boundaries: a rune split between two writes is recorded whole in
// the later event, and bytes that can never form valid UTF-8 become
// U+FFFD, one per byte, the same way however the stream was split. Times
// are whole microseconds, written with six decimals; v3's intervals sum
// back to the same microseconds exactly.
//
// A Writer or Reader is not safe for concurrent use.
package cast

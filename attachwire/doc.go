// Package attachwire holds every byte of interactive-attach-v1, the
// protocol between a PTY session host, a relay and viewers (the byte
// layouts are in docs/protocol.md).
//
// # Model
//
// A Frame is one carrier message: a FrameType, a sequence number, a
// relative time in microseconds and a payload; the carrier (a WebSocket
// message, a record of a frames file) delimits it. Frame.AppendBinary and
// DecodeFrame handle the header. Each payload type has an append encoder
// and a strict decoder: AppendInput/DecodeInput, AppendResize/DecodeResize,
// AppendMarker/DecodeMarker, AppendExit/DecodeExit,
// AppendSnapshot/DecodeSnapshot and AppendControl/DecodeControl; Output
// payloads are raw bytes (NewOutputFrame). Payload types have a Frame
// method that wraps them in a frame; ControlFrame wraps a control.
//
// A Screen is the snapshot model (format 0x01): grids of Cells, the cursor,
// modes and scrollback. AppendScreen and DecodeScreen encode it, and
// AppendScreenSnapshot writes it as a whole Snapshot payload; a
// ScreenEncoder appends the same bytes part by part, for a terminal that
// encodes straight from cells of its own. Turning a Screen back into
// escape sequences for a terminal is the consumer's job (the module's own
// renderer is internal/repaint). Controls are JSON messages
// typed by Go structs (Subscribe, PenState, ...) behind the sealed Control
// interface (MarshalControl/ParseControl for the bare JSON), with the
// error-code registry as ErrorCode constants. FileWriter and FileReader
// carry frames in a frames file ("PTYHFRM" header, then uvarint-length
// records). Mapping a process's end to an Exit payload (signal names,
// 128 + signum) is the host's job: package ptyhost does it.
//
// The rest of the relay↔peer contract lives here too, so that the relay,
// the host carrier, the viewer and the page's engine share one definition
// of each: the degraded lane's batch bodies and answers (HostBatch,
// ViewerBatch, ParseHostBatch, ParseViewerBatch), its SSE stream
// (SSEReader, AppendSSEFrame, DecodeLaneFrame), the planned-restart and
// Retry-After formats (FormatRedialAfter, ParseRedialAfter,
// ParseRestartReason, ParseRetryAfter), the redial Backoff, the
// InputDedupHeader declaration and CapMessage for error messages.
//
// Decoders never panic on any input and report every defect as a
// *FramingError (errors.As), whose Err is io.ErrUnexpectedEOF when input
// ends too early. An unknown control type is a soft *UnknownControlError
// (errors.Is ErrUnknownControl). ErrRingMiss is the condition a
// subscription cursor outside a host's ring reports.
//
// # Concurrency
//
// The package has no state: its functions are safe to call from any
// goroutine. Values (Frame, Screen, payloads) are plain data: concurrent
// reads are safe, a write needs the caller's synchronisation. A Frame a
// host publishes is shared and must be treated as immutable. A FileWriter
// or FileReader, and a ScreenEncoder, is used by one goroutine at a time.
//
// # Limits
//
// Decoders check every length read off the wire against the remaining
// input before slicing or allocating, so memory use is bounded by a small
// multiple of the input size: a Screen cell takes at least 4 bytes on the
// wire and 32 in memory, a scrollback line one byte and a 24-byte slice
// header (hence at most MaxScrollbackLines lines), and ParseControl
// allocates about 1.2 times a presence list's size. Screen dimensions are
// at most MaxScreenDim; a presence list holds at most MaxPresenceMembers
// members; 32-bit fields (Resize sizes, exit codes) reject larger values.
// A frames file record is at most MaxRecordLen bytes. Controls are
// registered once, in a table of generic parsers (control.go), which a
// test holds to the sealed set of Control types.
package attachwire

// Package shellmark finds the shell-integration marks a shell writes
// between prompts and commands: OSC 133 (A prompt, B prompt end, C command
// executed, D[;status] command finished) and VS Code's OSC 633, which adds
// E;<command line> and P;<property>. A Scanner reads a program's output as
// it arrives, in chunks split anywhere, and reports each mark with the
// offset just past the sequence that carried it, so that a caller can cut
// the stream there and put the mark in its place.
//
// The scanner reads the stream as the host's emulator does: an OSC ended
// by BEL or ST (ESC \), CAN or SUB abandoning it, and ESC inside any
// sequence or string ending it; the contents of DCS, APC, PM and SOS
// strings are skipped up to that ESC. Only the 7-bit forms are marks
// (shells write no other), and a body holding another control byte is
// not one. A mark body is bounded (MaxBody): a longer OSC is skipped
// whole, never buffered.
package shellmark

// Package outfile opens a file a user named for output (a cast, a frames
// file) without ever destroying what ptyhost did not create.
//
// Open creates the file exclusively when it does not exist, and then owns
// it: Abort (the output never started) removes it. A regular file that
// already exists is never removed. It is either opened as it is and only
// truncated by Begin, when the output really starts, so a failure before
// that leaves it untouched; or, with Options.Replace, left alone while a
// temporary file beside it is written, which Close renames over it only
// if all went well (a failure at any point keeps the original whole). A
// FIFO or a character device (a terminal, or /dev/stdout, which often is
// one) is refused with an error matching ErrNotRegular unless
// Options.AllowSpecial is set; when allowed it is written as it is, never
// truncated, synced or removed. A directory, a block device or a socket
// is always refused.
//
// Opening a FIFO for writing waits for a reader, as a shell redirection
// does. Between Open's check of a path and its open, and between Abort's
// check that the path still names the file it created and the removal,
// another process could swap the name; Open re-checks the file it opened,
// and Abort removes nothing that is not the very file it created when it
// looked.
//
// A File is for one writer goroutine; Close may be called from another
// to interrupt a Write blocked on a FIFO or terminal.
package outfile

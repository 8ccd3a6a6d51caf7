// Package rawterm holds the one definition of a raw terminal mode that
// ptyhost uses: the CLI's own terminal while `ptyhost run` drives a
// program, and the test children that read input byte by byte. Getting
// and setting the settings stays with the callers, since the ioctls
// differ between Linux and the BSDs.
package rawterm

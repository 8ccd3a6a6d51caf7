// Command ptyhost runs programs under a pseudo-terminal hosted by package
// ptyhost, whose headless terminal emulator always knows what the screen
// looks like.
//
//	ptyhost run  [--size COLSxROWS] [--record FILE] [--scrollback N] [--ring BYTES] -- CMD [ARGS...]
//	ptyhost exec [--size COLSxROWS] [--input TEXT] [--input-file FILE] [--wait-for REGEX]
//	             [--quiet-for DURATION] [--timeout DURATION] [--format text|ansi|json]
//	             [--frames FILE] [--record FILE] -- CMD [ARGS...]
//	ptyhost share [--relay URL --key FILE | --port N] [--room ID] [--ttl DURATION]
//	              [--final-screen DURATION] [run's flags] -- CMD [ARGS...]
//	ptyhost play [--speed X] [--idle-limit DURATION] [--screen] [--format text|ansi|json] FILE.cast
//	ptyhost attach [--drive] [--token-file FILE] URL
//	ptyhost relay --public-key FILE [--listen ADDR] [--tls-cert F --tls-key F] [--allow-origin O] [--nats URL|embedded]
//	ptyhost keygen --out NAME
//	ptyhost token --key FILE --room ID --role host|driver|viewer [--user U] [--epoch N] [--org O] [--ttl D]
//	ptyhost version
//	ptyhost help [COMMAND]
//
// run attaches this terminal to the program as the driver: raw mode (always
// restored, also on a panic or SIGINT, SIGTERM, SIGHUP), the program's
// screen painted from a snapshot, its output sanitized with the Driver
// profile, keys forwarded, window resizes applied, and a restore trailer
// written at the end. share does the same and carries the session to a
// relay (its own on 127.0.0.1 unless --relay), printing the viewers' links
// first and serving the final screen for a while after the exit. exec runs the program headless, types scripted
// input, waits for it to exit, for a pattern on its screen, for quiet, for
// a timeout or an interrupt, and prints the screen as text, an ANSI
// screenshot (safe to cat) or JSON. play replays
// an asciicast (v2 or v3) through a Viewer sanitizer, or prints its final
// screen. attach watches (or, with --drive, drives) a session shared
// through a relay; relay serves rooms to hosts and viewers; keygen and
// token make the keys and attach tokens a relay checks.
//
// relay's --nats embedded runs a NATS server in the process only in a
// binary built with -tags ptyhost_natsembedded: nats-server arms a timer
// at init that would cost every command CPU (docs/performance.md). Other
// builds refuse it with exit status 2; --nats nats://HOST:PORT works in
// every build.
//
// # Exit status
//
// The program's own status, 128 + signum when a signal killed it; 2 for a
// usage error (including run without a terminal); 124 when exec's
// --timeout expired; 125 when ptyhost itself failed; 126 when the command
// cannot be executed; 127 when it is not found; 128 + signum when ptyhost
// was interrupted by SIGINT, SIGTERM or SIGHUP. main maps errors to these
// codes in one place, exitCode.
package main

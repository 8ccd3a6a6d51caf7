// Package web is the browser viewer the relay serves: a page at
// /v1/rooms/<roomId>/view that reads an attach token from the URL
// fragment (#token=…), dials the room's WebSocket with the token in the
// bearer. subprotocol, and shows the session in xterm.js. A fragment that
// is a bare invite secret (a relay in issuer mode's short link,
// /s/<roomId>#<secret>, redirected here) is first redeemed at the relay's
// /v1/issuer/redeem under the name the person gives, asked once and kept
// in localStorage. After three
// WebSocket dials in a row fail to open (a proxy that breaks WebSocket)
// it rides the degraded lane: it trades the attach token for a ticket
// (POST …/sse-ticket), opens an EventSource on …/sse?ticket= (resuming
// from the last seq it applied), and POSTs batches to …/input with the
// token, one in flight at a time. Each batch carries the oldest inputs not
// yet acknowledged (the engine's, in one inputSeq space across carriers),
// up to 256 KiB of them before base64, and the controls waiting. The
// engine splits what is typed or pasted into Input frames of at most
// 64 KiB (never cut inside a rune or a short escape sequence, as
// internal/inputcut says), so a paste of megabytes meets no relay limit on
// either carrier;
// one that would take the input awaiting the relay's ack past 16 MiB (or
// 4,096 frames) is not sent at all, and the notice line says so. On a 409
// it sends again from the relay's ackInputSeq+1; on a 429 it waits
// Retry-After and sends the same batch (same batchId); network errors and 5xx are retried with a backoff; a 410
// reopens the lane on a new ticket; a 401 or 403 does so once and stops
// the page if it comes again; a 404 (or three failed lane legs in a row)
// sends it back to WebSocket dials, so a relay without the lane never
// strands it. A WebSocket handshake tried every 30 s (#probe=<ms>) moves
// it back once one opens. Controls (grab, release, the viewport) made
// while no leg is up, as during that move, are held and sent once on the
// next leg the relay admits. While the page rides the lane its bar shows
// an "SSE fallback" chip beside the room state (which says how the host
// is connected, not the page). #nows=1 is the tests' switch that makes
// every WebSocket dial fail, and #maxpaste=<bytes> lowers (never raises)
// what a paste may leave awaiting the relay's ack, so a test reaches the
// refusal without pasting 16 MiB.
//
// The page decodes frames, snapshots and controls with the project's own
// Go code (package web/engine, compiled to WebAssembly by web/wasm), and
// its screen is the host's by construction: the host's own terminal
// engine (internal/term/engine) runs in the WebAssembly as the page's
// emulator, loaded from each snapshot and fed each Output frame's bytes
// as the host sent them, answering nothing. xterm.js only renders: it is
// written the paint of what changed on that engine's screen (package
// web/screen: changed rows from their first changed cell, each cell's
// text at its column with its SGR, lines scrolled into its scrollback,
// the alternate screen, the cursor, and the program's input modes while
// the page holds the pen), never the program's output, and measures
// characters by the engine's width table (src/widths.ts registers it as
// xterm.js's Unicode provider), so each glyph covers the cells the engine
// gave it. Its replies to queries are swallowed all the same (the paint
// holds none, the page registers handlers that consume them, and only
// data produced inside a trusted keyboard, paste, mouse or focus event of
// the person at the page is sent, and only while the page holds the pen).
// #grid=1 is the tests' switch that adds to window.ptyhostViewer the
// screen cell for cell (src/grid.ts) and the last seq applied, which the
// differential test compares with the host's engine.
//
// Command marks (docs/protocol.md §4) are read by the engine's
// WebAssembly and filed by web/src/commands.ts: each command a block in
// the terminal's gutter coloured by its exit status (an xterm.js
// decoration on a marker at the line its output starts), an entry in the
// commands list that jumps to it, and a copy of its output.
//
// With a relay that keeps the room's history (relay --history-dir), the
// rewind button opens a timeline (web/src/rewind.ts): moving it asks the
// relay for the screen at that seq (a key frame and the frames after it)
// and draws it in a second terminal, on a second engine, so the live
// leg's seqs never meet the history's; Live puts the live terminal back.
// Search reads the whole history in ranges and lists where the text was
// printed (the engine's Searcher, in WebAssembly); a result rewinds there.
// In a sealed room the history comes sealed, and the engine opens each
// frame with the link's key before it is drawn or searched: the text
// searched for never leaves the page, and a frame that fails to open is
// skipped with a line saying so (docs/protocol.md section 8).
//
// A link that does not get in says why, in a sentence that stays
// (src/refusal.ts holds them): the page itself tells a token it cannot
// read, one that has expired, a host's token and a token for another
// room, and dials none of them; after a WebSocket dial that does not open
// it asks the relay, whose ticket endpoint (…/sse-ticket) verifies the
// token as the upgrade does and, unlike a refused upgrade, lets a page
// read its answer: a token the relay refuses (forged, altered, for
// another relay), a link used up. A link already open in another tab
// says so while the page keeps trying. The page then stops: no redial,
// no degraded lane.
//
// On a touch screen (a coarse pointer, or touch points) the page shows a
// row of the keys a soft keyboard lacks (src/touchkeys.ts): Esc, Tab,
// Ctrl, the four arrows, Ctrl-C and Paste. They send through the same path
// as typing, so without the pen they send nothing and the notice line
// says why (as it does for keys typed). Ctrl is sticky: a tap holds it
// for the next key typed on the soft keyboard or the row (c then sends
// 0x03, an arrow CSI 1;5). The arrows send SS3 in application cursor mode
// and CSI otherwise, from the mode the terminal holds, which is the one
// a real keyboard's arrows follow. Paste reads the clipboard where the
// browser lets the page (a secure page with the person's leave) and
// sends it as a paste (bracketed when the program asked); elsewhere it
// says the browser does not let it. At 360 px wide the bar wraps, the
// notice is cut to its own line, and a terminal wider than the screen
// (the host's size, for a viewer) scrolls inside its box: the page
// itself never scrolls sideways. The bar's "screen reader" switch turns
// on xterm.js's screen-reader mode (its rows as an accessible tree), and
// the browser remembers it (localStorage ptyhost.screenReader).
//
// The page starts from its boot script (wasm_exec.js, the Go runtime's
// side in the page, and src/boot.ts), first in the page's head, which
// the head follows with preloads of the engine's WebAssembly and the
// page's script (app.js: xterm.js and src/main.ts). The boot script
// dials the WebSocket and starts a worker running its own file: the
// worker fetches and compiles the WebAssembly off the main thread, hands
// the module to the page, starts the Go program on it, makes the dial's
// subscribe (sent as soon as the socket is open) and, given each message
// the dial receives, answers with what it paints: the snapshot is decoded
// and painted in the worker while the main thread sets xterm.js up, and
// written to xterm.js as soon as both are done, with the engine's widths
// of the characters it holds. The page's script runs once the worker has
// started (a worker's start needs the main thread for a moment). Only
// after the frame that draws the first paint does the page start the Go
// program on its main thread, from the same module (V8 compiles a
// module's functions on their first call, into the module both threads
// share, so the worker's work is not done twice); it replays the dial's
// messages into its engine without drawing again what the worker drew
// (the same engine on the same messages paints the same), takes the
// socket over and lets the worker go. Without a worker the page compiles
// and runs the engine itself. window.ptyhostViewer.marks holds the
// start-up timeline the tests and BenchmarkFirstPaint read.
//
// The bundle is committed in dist/, every file gzipped at the best
// compression, so that `go build` and `go install` serve the page with
// no npm:
//
//	file                gzipped (committed, downloaded)   inflated
//	index.html                 1,154 B                     2,819 B
//	boot.<hash>.js             5,122 B                    13,620 B
//	app.<hash>.js            101,337 B                   379,693 B
//	app.<hash>.css             3,035 B                     9,016 B
//	engine.<hash>.wasm     1,283,865 B                 4,961,861 B
//	dist/ in all           1,394,963 B (README included; budget 1.3 MiB
//	                                     + 48 KiB + 20 KiB, below)
//
// The terminal engine and its painter (package web/screen) in the
// WebAssembly add about 58 KB to it, the width provider and the grid
// hook under 1 KB to app.js, the boot script's worker (the compile off
// the main thread and the early paint) about 1.3 KB to boot.js and
// app.js; to stay in the budget the WebAssembly is
// built with inlining off except in the runtime, the engine and the
// painter (about 55 KB less than with it). Two features built on the
// viewer add to the budget what they add to the bundle: opening sealed
// rooms (docs/protocol.md section 8: XChaCha20-Poly1305, HKDF and the
// sealed frames and texts, about 44 KB of the WebAssembly, and opening
// their history for rewind and search, about 3.5 KB more; 48 KiB
// allowed) and input proposals (docs/protocol.md §6: their controls, the
// visible text and its reading back, the panel and the editor, about
// 16 KB, 20 KiB allowed).
//
// Every file but the page is named for its content (the first 64 bits of
// its SHA-256) and served with Cache-Control "public, max-age=31536000,
// immutable"; the page names them, and is served "no-cache" with an ETag
// that answers If-None-Match with 304, so a returning browser moves about
// 300 bytes and a new bundle reaches it at once. Handler sends a file's
// gzip stream as stored to a client that takes gzip and inflates it for
// one that does not. `go generate ./web` rebuilds the bundle (npm ci of
// the lockfile's xterm.js and esbuild, esbuild, the wasm build and
// wasm_exec.js under the Go release pinned in web/internal/build), byte
// for byte the same from the same sources; CI rebuilds it and fails if
// the result differs from what is committed. It also builds
// testdata/xtermonly, the benchmark's page that loads only xterm.js. A
// tree whose dist was emptied builds a Handler that serves a page saying
// how to rebuild it.
//
// Handler answers only PagePattern and AssetPattern requests (404 for
// anything else); it is safe for concurrent use and holds no state beyond
// the embedded files.
package web

//go:generate go run ./internal/build

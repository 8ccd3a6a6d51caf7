// Package xvt is the term.Terminal backend built on
// github.com/charmbracelet/x/vt v0.1.0, with the guards that version needs
// on a session host.
//
// Model: every byte the child writes crosses a small filter before x/vt
// sees it. The filter follows x/vt's own parser table, re-serializes CSI
// sequences with parameters saturated at 65535 and counts clamped to the
// screen (x/vt loops over counts and keeps 31-bit parameters), and drops
// ?2048 so x/vt never reports a resize on its own. Every query x/vt would
// answer, and those it lacks (XTVERSION, DECRQSS, XTGETTCAP, CSI 18/14/16 t,
// ?996n, OSC 4), is answered by hooks registered over x/vt's defaults,
// synchronously during Write, so answers keep query order and come from one
// path. Answers are constants or numbers computed from state; no query
// chooses the bytes of its answer.
//
// Concurrency: a Terminal is not safe for concurrent use. New starts one
// goroutine that drains x/vt's unbuffered answer pipe (x/vt blocks on it
// otherwise); it holds no lock of the Write path and discards what it reads
// (nothing, unless x/vt grows an answer the hooks do not cover); Close
// joins it.
//
// What x/vt hides and how it is derived: the mode table (mirrored from
// x/vt's mode callbacks), the SGR pen through DECSC/DECRC and screen
// switches, and the margins (mirrored by observer hooks, for DECRQSS and
// ED 1), the cursor shape (tracked from DECSCUSR, global as in xterm), the
// primary screen and its cursor while the alternate screen is active
// (copied on the switch), and the pending-wrap flag (derived from the run
// of text since the cursor last moved: exact for ASCII runs and after a
// wide glyph that fills the last column, reported unset for other runs
// with non-ASCII characters). Not derived: left/right margins
// (a CPR in origin mode is relative to the top margin only).
//
// Fixed on the way in, to match xterm and tmux (each one found by the
// differential tests in this package and covered by a recorded sequence
// or a test of its own):
//   - insert mode (IRM), which x/vt ignores: an ICH before each character;
//   - ?47 becomes ?1047; NEL (ignored by x/vt) becomes IND and CR; CR in
//     origin mode (x/vt moves down by the top margin) becomes CHA 1; REP
//     repeats only right after a printed character, once;
//   - ED 1, 2 and 3 and DECALN, which x/vt gets wrong or ignores, are done
//     through x/vt's SetCell and Scrollback;
//   - cursor moves x/vt leaves out, fed after the sequence as CUP: around
//     ?1049 and ?1047 switches (with the margins, which x/vt keeps per
//     screen), on ?6, after IL and DL inside a scroll region;
//   - a wide glyph that would start in the last column wraps first, and one
//     that ends in it leaves a wrap pending (x/vt cuts the first and lets
//     the next character overwrite the second), by CR LF where the wrap
//     goes.
//
// Limits: x/vt scrolls by moving every cell of the screen, so output that
// scrolls costs O(rows×cols) per line, and REP (clamped to rows×cols) as
// much as that many characters. x/vt ends a grapheme cluster at the end of
// each Write, so a combining mark written apart from its base lands in a
// cell of its own. Each emulator allocates a 4 MiB buffer for OSC and DCS
// payloads; longer ones are truncated by x/vt.
package xvt

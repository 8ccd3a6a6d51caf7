// The page's terminal draws each glyph across the cells the host's
// terminal engine gave it: this Unicode provider answers xterm.js's width
// and joining questions from the engine's own table (ptyhostWidth, from
// the engine's WebAssembly) by the engine's rule, so the paint
// (web/screen), which prints each cell's cluster at its column, lands
// cell for cell. The rule: a character of width 0 (a combining mark, a
// variation selector, a joiner) joins the cell before it, so does any
// character right after a zero-width joiner, and a cluster keeps the
// width of its first character.
import type { IUnicodeVersionProvider, Terminal } from '@xterm/xterm';

declare function ptyhostWidth(codepoint: number): number;

const VERSION = 'ptyhost-engine';
const ZWJ = 0x200d;
// State kept in a character's properties (xterm.js keeps them from one
// character to the next within a printed run): the next one joins.
const JOIN_NEXT = 1;

// widths caches the engine's answer per code point: 0 unknown, else the
// width plus one.
let widths: Uint8Array | null = null;

function width(cp: number): 0 | 1 | 2 {
  if (cp < 0x300) return cp >= 0x20 && (cp < 0x7f || cp >= 0xa0) ? 1 : 0;
  if (cp > 0x10ffff) return 1;
  widths ??= new Uint8Array(0x110000);
  let w = widths[cp];
  if (w === 0) {
    // Before the page's engine runs, the boot script's worker gave the
    // widths of what it painted (knownWidths); anything else is taken
    // as one cell, and asked again later.
    if (typeof ptyhostWidth !== 'function') return 1;
    w = Math.min(Math.max(ptyhostWidth(cp), 0), 2) + 1;
    widths[cp] = w;
  }
  return (w - 1) as 0 | 1 | 2;
}

// xterm.js's encoding of character properties: join flag, width, state.
const props = (state: number, w: number, join: boolean) => (state << 3) | ((w & 3) << 1) | (join ? 1 : 0);

const provider: IUnicodeVersionProvider = {
  version: VERSION,
  wcwidth: width,
  charProperties(cp: number, preceding: number): number {
    const w = width(cp);
    const base = (preceding >> 1) & 3;
    if (base !== 0 && ((preceding >> 3) === JOIN_NEXT || w === 0)) {
      return props(cp === ZWJ ? JOIN_NEXT : 0, base, true);
    }
    return props(0, w, false);
  },
};

// knownWidths records the engine's widths of some characters as pairs
// (code point, width, ...), before the engine runs on this thread.
export function knownWidths(pairs: number[]): void {
  widths ??= new Uint8Array(0x110000);
  for (let i = 0; i + 1 < pairs.length; i += 2) {
    const cp = pairs[i];
    if (cp >= 0 && cp <= 0x10ffff) widths[cp] = Math.min(Math.max(pairs[i + 1], 0), 2) + 1;
  }
}

const using = new WeakSet<Terminal>();

// useEngineWidths makes term measure characters as the engine does: by
// the widths knownWidths was given, and once the engine's WebAssembly
// runs on this thread, by it.
export function useEngineWidths(term: Terminal): void {
  if (using.has(term)) return;
  using.add(term);
  term.unicode.register(provider);
  term.unicode.activeVersion = VERSION;
}

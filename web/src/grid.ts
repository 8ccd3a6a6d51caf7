// The tests' view of the page's screen, cell for cell, as xterm.js holds
// it: the differential test (web/screen_browser_test.go) compares it with
// the host's terminal engine. The page installs it only for a fragment
// with grid=1, as the tests open it.
import type { IBufferCell, IBufferLine, Terminal } from '@xterm/xterm';

// Cell is one cell: its text ('' for the second half of a wide glyph, ' '
// for a blank), width, attributes (letters: b bold, d dim, i italic, u
// underline, r reverse, s strikethrough) and colors ('' default, 'p' and
// an index, 'r' and six hex digits).
export interface Cell { t: string; w: number; a: string; fg: string; bg: string }

export interface Grid {
  cols: number; rows: number; alt: boolean;
  cursorX: number; cursorY: number; cursorHidden: boolean | null;
  cells: Cell[][]; history: Cell[][];
}

function color(mode: 'fg' | 'bg', c: IBufferCell): string {
  const def = mode === 'fg' ? c.isFgDefault() : c.isBgDefault();
  if (def) return '';
  const v = mode === 'fg' ? c.getFgColor() : c.getBgColor();
  const rgb = mode === 'fg' ? c.isFgRGB() : c.isBgRGB();
  return rgb ? 'r' + v.toString(16).padStart(6, '0') : 'p' + v;
}

function cells(line: IBufferLine | undefined, cols: number, trim: boolean): Cell[] {
  const out: Cell[] = [];
  if (!line) return out;
  for (let x = 0; x < cols; x++) {
    const c = line.getCell(x);
    if (!c) break;
    const w = c.getWidth();
    const t = w === 0 ? '' : c.getChars() || ' ';
    const a = (c.isBold() ? 'b' : '') + (c.isDim() ? 'd' : '') + (c.isItalic() ? 'i' : '') +
      (c.isUnderline() ? 'u' : '') + (c.isInverse() ? 'r' : '') + (c.isStrikethrough() ? 's' : '');
    out.push({ t, w, a, fg: color('fg', c), bg: color('bg', c) });
  }
  if (trim) {
    // As the engine keeps scrollback lines: without trailing default blanks.
    while (out.length > 0) {
      const c = out[out.length - 1];
      if (c.t !== ' ' || c.a !== '' || c.fg !== '' || c.bg !== '') break;
      out.pop();
    }
  }
  return out;
}

// readGrid reads the active screen, the cursor and the primary buffer's
// scrollback, once xterm.js has parsed everything written to it.
export function readGrid(term: Terminal): Promise<Grid> {
  return new Promise((resolve) => term.write('', () => {
    const act = term.buffer.active, normal = term.buffer.normal;
    const screen: Cell[][] = [];
    for (let y = 0; y < term.rows; y++) screen.push(cells(act.getLine(act.baseY + y), term.cols, false));
    const history: Cell[][] = [];
    const kept = normal.length - term.rows;
    for (let y = 0; y < kept; y++) history.push(cells(normal.getLine(y), term.cols, true));
    // Cursor visibility is not in xterm.js's public API.
    const hidden = (term as any)._core?.coreService?.isCursorHidden;
    resolve({
      cols: term.cols, rows: term.rows, alt: act.type === 'alternate',
      cursorX: act.cursorX, cursorY: act.cursorY, cursorHidden: typeof hidden === 'boolean' ? hidden : null,
      cells: screen, history,
    });
  }));
}

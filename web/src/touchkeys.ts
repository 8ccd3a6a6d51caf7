// The key row a touch screen gets: the keys a phone's soft keyboard lacks
// (Esc, Tab, Ctrl, the arrows, Ctrl-C) and Paste. A key sends its bytes
// through the page's input path, as typing does, so the pen rules are
// the same: without the pen nothing is sent and the person is told why.
// Ctrl is sticky, as phone users know it: tapped, it changes the next key
// typed (on the soft keyboard or on the row) and lets go.

// KeyHost is what the row needs of the page.
export interface KeyHost {
  // send sends bytes a person typed; the row calls it only within a
  // trusted touch or click (or after a paste the person asked for).
  send(data: Uint8Array): void;
  // refusal says why typing does not reach the program now (no pen, a
  // viewer's link), or '' when it does.
  refusal(): string;
  notice(s: string): void;
  // appCursor tells whether the program asked for application cursor
  // keys (DECCKM), and bracketed whether it asked for bracketed paste.
  appCursor(): boolean;
  bracketed(): boolean;
}

// Key is one button of the row.
interface Key { id: string; label: string; title: string; bytes?: (k: TouchKeys) => string }

// CSI arrow finals in the order of the row.
const ARROWS: Record<string, string> = { left: 'D', up: 'A', down: 'B', right: 'C' };

function arrow(dir: string): (k: TouchKeys) => string {
  return (k) => k.arrow(ARROWS[dir]);
}

const KEYS: Key[] = [
  { id: 'esc', label: 'Esc', title: 'Escape', bytes: () => '\x1b' },
  { id: 'tab', label: 'Tab', title: 'Tab', bytes: () => '\t' },
  { id: 'ctrl', label: 'Ctrl', title: 'Ctrl: held for the next key typed' },
  { id: 'left', label: '←', title: 'left arrow', bytes: arrow('left') },
  { id: 'up', label: '↑', title: 'up arrow', bytes: arrow('up') },
  { id: 'down', label: '↓', title: 'down arrow', bytes: arrow('down') },
  { id: 'right', label: '→', title: 'right arrow', bytes: arrow('right') },
  { id: 'ctrl-c', label: '^C', title: 'Ctrl-C: interrupt', bytes: () => '\x03' },
  { id: 'paste', label: 'Paste', title: 'paste from the clipboard' },
];

// ctrlOf is what a key typed with Ctrl sends, as xterm sends it from a
// keyboard: letters and @[\]^_ become C0 controls, ? DEL, and the digits
// 2 to 8 their xterm meanings; any other key is sent as it is.
export function ctrlOf(ch: string): string {
  if (ch.length !== 1) return ch;
  const c = ch.charCodeAt(0);
  if (c >= 0x61 && c <= 0x7a) return String.fromCharCode(c - 0x60);
  if (c >= 0x40 && c <= 0x5f) return String.fromCharCode(c - 0x40);
  if (ch === ' ' || ch === '2') return '\x00';
  if (ch === '?' || ch === '8') return '\x7f';
  if (c >= 0x33 && c <= 0x37) return String.fromCharCode(c - 0x33 + 0x1b);
  return ch;
}

// pasteBytes is what a paste of text sends: line ends as Enter sends
// them, and within bracketed-paste marks when the program asked for them
// (an end mark inside the text is dropped, so the text cannot end the
// paste early and type what follows it as keys).
export function pasteBytes(text: string, bracketed: boolean): string {
  let t = text.replace(/\r?\n/g, '\r');
  if (!bracketed) return t;
  t = t.split('\x1b[201~').join('');
  return '\x1b[200~' + t + '\x1b[201~';
}

const enc = new TextEncoder();

// coarse is the media query of a touch screen's pointer.
const COARSE = '(any-pointer: coarse)';

// TouchKeys is the row. It shows itself on a touch screen only (a coarse
// pointer, or touch points), and follows the screen's changes.
export class TouchKeys {
  private ctrl = false;
  private readonly buttons = new Map<string, HTMLButtonElement>();

  constructor(private readonly row: HTMLElement, private readonly host: KeyHost) {
    for (const k of KEYS) {
      const b = document.createElement('button');
      b.type = 'button';
      b.id = 'key-' + k.id;
      b.textContent = k.label;
      b.title = k.title;
      b.setAttribute('aria-label', k.title);
      if (k.id === 'ctrl') b.setAttribute('aria-pressed', 'false');
      this.buttons.set(k.id, b);
      row.append(b);
      this.listen(b, k);
    }
    const mq = window.matchMedia(COARSE);
    const show = () => { row.hidden = !(mq.matches || navigator.maxTouchPoints > 0); };
    show();
    mq.addEventListener('change', show);
  }

  // listen acts on a tap at its end, and keeps the tap from moving the
  // focus: the terminal keeps it and the soft keyboard stays up. A click
  // (a mouse, a keyboard on the focused button) acts too; a tap whose
  // start was kept from its default makes no click.
  private listen(b: HTMLButtonElement, k: Key): void {
    b.addEventListener('touchstart', (e) => { if (e.cancelable) e.preventDefault(); }, { passive: false });
    b.addEventListener('touchend', (e) => {
      if (!e.isTrusted) return;
      if (e.cancelable) e.preventDefault();
      const t = e.changedTouches[0];
      if (t && document.elementFromPoint(t.clientX, t.clientY) !== b) return; // slid off: no key
      this.press(k);
    });
    b.addEventListener('click', (e) => { if (e.isTrusted) this.press(k); });
  }

  private press(k: Key): void {
    const why = this.host.refusal();
    if (why) {
      this.setCtrl(false);
      this.host.notice(why);
      return;
    }
    if (k.id === 'ctrl') { this.setCtrl(!this.ctrl); return; }
    if (k.id === 'paste') { this.setCtrl(false); void this.paste(); return; }
    const s = k.bytes!(this);
    this.setCtrl(false);
    this.host.send(enc.encode(s));
  }

  // arrow is an arrow key's sequence: SS3 in application cursor mode,
  // CSI otherwise, and CSI 1;5 with Ctrl held (xterm's, in either mode).
  arrow(final: string): string {
    if (this.ctrl) return '\x1b[1;5' + final;
    return (this.host.appCursor() ? '\x1bO' : '\x1b[') + final;
  }

  // modify applies a held Ctrl to data typed on the keyboard (its first
  // key; an escape sequence, from a real keyboard's special key, is let
  // through unchanged) and lets Ctrl go.
  modify(data: string): string {
    if (!this.ctrl || data === '') return data;
    this.setCtrl(false);
    if (data.charCodeAt(0) === 0x1b) return data;
    const first = String.fromCodePoint(data.codePointAt(0)!);
    return ctrlOf(first) + data.slice(first.length);
  }

  // held reports whether Ctrl waits for the next key.
  held(): boolean { return this.ctrl; }

  private setCtrl(on: boolean): void {
    this.ctrl = on;
    const b = this.buttons.get('ctrl')!;
    b.setAttribute('aria-pressed', String(on));
    b.classList.toggle('held', on);
  }

  // paste reads the clipboard where the browser lets the page (a secure
  // page, with the person's leave) and sends it as a paste; elsewhere it
  // says what to do instead.
  private async paste(): Promise<void> {
    const cannot = 'this browser does not let the page read the clipboard here (it needs https and your leave): ' +
      "paste with the keyboard's own clipboard instead";
    if (!navigator.clipboard || typeof navigator.clipboard.readText !== 'function') {
      this.host.notice(cannot);
      return;
    }
    let text: string;
    try {
      text = await navigator.clipboard.readText();
    } catch {
      this.host.notice(cannot);
      return;
    }
    if (!text) { this.host.notice('the clipboard holds no text to paste'); return; }
    const why = this.host.refusal(); // the pen may have gone while the browser asked
    if (why) { this.host.notice(why); return; }
    this.host.send(enc.encode(pasteBytes(text, this.host.bracketed())));
  }
}

// The screen-reader switch: xterm.js's screen-reader mode (a live region
// of the terminal's rows that assistive technology reads) on request,
// remembered in this browser. It is off by default because it costs a
// DOM tree the size of the screen, rewritten on every change.
import type { Terminal } from '@xterm/xterm';

const KEY = 'ptyhost.screenReader';

function remembered(): boolean {
  try { return localStorage.getItem(KEY) === '1'; } catch { return false; } // storage disabled
}

function remember(on: boolean): void {
  try {
    if (on) localStorage.setItem(KEY, '1');
    else localStorage.removeItem(KEY);
  } catch { /* storage disabled: the switch holds for this page only */ }
}

// screenReaderSwitch makes button turn the mode on and off in every
// terminal terms returns (the live one and the rewind's), starting as
// this browser last left it.
export function screenReaderSwitch(button: HTMLButtonElement, terms: () => Terminal[]): void {
  let on = remembered();
  const apply = () => {
    button.setAttribute('aria-pressed', String(on));
    button.classList.toggle('on', on);
    for (const t of terms()) t.options.screenReaderMode = on;
  };
  apply();
  button.addEventListener('click', () => {
    on = !on;
    remember(on);
    apply();
  });
}

// screenReaderOn reports the mode this browser remembers, for a terminal
// made later.
export function screenReaderOn(): boolean {
  return remembered();
}

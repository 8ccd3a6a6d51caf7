// The first-paint benchmark's baseline (BenchmarkFirstPaint): a page that
// loads only xterm.js, with the viewer's terminal options, and writes the
// text its page carries (a JSON string in #text). It is built beside the
// viewer, from the same xterm.js, and is not part of the bundle the relay
// serves.
import { Terminal } from '@xterm/xterm';
import '@xterm/xterm/css/xterm.css';

const term = new Terminal({
  cursorBlink: false, scrollback: 5000, allowProposedApi: false,
  fontFamily: 'DejaVu Sans Mono, Menlo, Consolas, monospace', fontSize: 14,
  lineHeight: 1.2,
  theme: { background: '#000000', foreground: '#e5e5e5' },
});
term.open(document.getElementById('term') as HTMLElement);
term.write(JSON.parse((document.getElementById('text') as HTMLElement).textContent ?? '""'));

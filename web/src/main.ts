// The browser viewer: one WebSocket leg to a room, rendered by xterm.js.
// The protocol (frames, snapshots, controls, the sanitizer, the pen and
// input sequencing) runs in Go compiled to WebAssembly (web/engine); this
// file owns the socket, the terminal, the widgets and reconnection.
import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';

declare const Go: new () => { importObject: WebAssembly.Imports; run(i: WebAssembly.Instance): Promise<void> };

interface Member { userId: string; connId: string; role: string; driving: boolean }
interface Ev {
  kind: string; data?: Uint8Array; cols?: number; rows?: number; text?: string;
  message?: string; code?: number; retryable?: boolean; holding?: boolean; members?: Member[];
}
interface Engine {
  subscribe(cols: number, rows: number): Uint8Array[] | string;
  apply(msg: Uint8Array): Ev[] | string;
  input(data: Uint8Array): Uint8Array | null;
  viewport(cols: number, rows: number): Uint8Array | null;
  grab(): Uint8Array;
  release(): Uint8Array;
  holding(): boolean;
}
declare function ptyhostEngine(o: { sessionId: string; connId: string; driver: boolean }): Engine | string;

const SUBPROTOCOL = 'interactive-attach-v1';
const BACKOFF_MIN = 250, BACKOFF_MAX = 30000;

// Events a person causes. Terminal data produced while one of these is
// being dispatched (and trusted) was typed, pasted, clicked or focused;
// data produced at any other time (say, while xterm parses output) is an
// automatic reply and goes nowhere.
const PERSON_EVENTS = new Set([
  'keydown', 'keypress', 'keyup', 'beforeinput', 'input', 'textInput', 'paste', 'drop',
  'mousedown', 'mouseup', 'mousemove', 'wheel', 'click', 'auxclick', 'contextmenu',
  'pointerdown', 'pointerup', 'pointermove', 'touchstart', 'touchmove', 'touchend',
  'focus', 'blur', 'focusin', 'focusout',
]);

// Status is what the page shows, also read by the browser tests.
interface Status {
  connected: boolean; connects: number; snapshots: number; room: string; holding: boolean; holder: string; holderConn: string;
  members: Member[]; exit: string; error: string; inputsSent: number; repliesDropped: number;
  latencies: number[];
}

const $ = (id: string) => document.getElementById(id) as HTMLElement;

function b64url(s: string): string {
  const bytes = new TextEncoder().encode(s);
  let bin = '';
  bytes.forEach((b) => { bin += String.fromCharCode(b); });
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

// claims reads the token's payload for display and routing only (the role
// decides whether a pen button is shown; the jti names this connection);
// the relay verifies the signature.
function claims(tok: string): { role?: string; jti?: string; userId?: string; exp?: number } {
  try {
    const part = tok.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    const bin = atob(part + '='.repeat((4 - (part.length % 4)) % 4));
    return JSON.parse(new TextDecoder().decode(Uint8Array.from(bin, (c) => c.charCodeAt(0))));
  } catch {
    return {};
  }
}

async function loadEngine(base: string): Promise<void> {
  const go = new Go();
  const resp = fetch(base + 'engine.wasm');
  const { instance } = await WebAssembly.instantiateStreaming(resp, go.importObject);
  void go.run(instance);
}

// swallowQueries registers parser handlers that consume every query form
// xterm.js would answer, so that even a query the sanitizer let through
// (it lets none) produces no reply.
function swallowQueries(term: Terminal): void {
  const yes = () => true;
  const csi = [
    { final: 'c' }, { prefix: '>', final: 'c' }, { prefix: '=', final: 'c' }, { final: 'n' },
    { prefix: '?', final: 'n' }, { intermediates: '$', final: 'p' },
    { prefix: '?', intermediates: '$', final: 'p' }, { final: 't' }, { prefix: '>', final: 'q' },
    { prefix: '?', final: 'u' },
  ];
  for (const id of csi) term.parser.registerCsiHandler(id, yes);
  term.parser.registerDcsHandler({ intermediates: '$', final: 'q' }, yes);
  term.parser.registerDcsHandler({ intermediates: '+', final: 'q' }, yes);
  for (const n of [4, 5, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 52, 104, 110, 111, 112]) {
    term.parser.registerOscHandler(n, yes);
  }
}

function main(): void {
  const params = new URLSearchParams(location.hash.slice(1));
  const tok = params.get('token') ?? '';
  const path = location.pathname.replace(/\/view$/, '');
  const sessionId = decodeURIComponent(path.slice(path.lastIndexOf('/') + 1));
  const c = claims(tok);
  const driver = c.role === 'driver';
  const status: Status = {
    connected: false, connects: 0, snapshots: 0, room: 'connecting', holding: false, holder: '', holderConn: '', members: [],
    exit: '', error: '', inputsSent: 0, repliesDropped: 0, latencies: [],
  };

  let eng: Engine | null = null;
  let ws: WebSocket | null = null;
  const term = new Terminal({
    cursorBlink: false, scrollback: 5000, allowProposedApi: false,
    fontFamily: 'DejaVu Sans Mono, Menlo, Consolas, monospace', fontSize: 14,
    // At the default height some fonts' underscores fall outside the cell.
    lineHeight: 1.2,
    theme: { background: '#000000', foreground: '#e5e5e5' },
  });
  const fit = new FitAddon();
  term.loadAddon(fit);
  swallowQueries(term);
  term.open($('term'));
  // The tests read the terminal and the status, and cut the connection
  // as a network would (drop), to see the page resume.
  const hooks = { term, status, drop: () => { ws?.close(4000, 'dropped'); } };
  (window as any).ptyhostViewer = hooks;

  if (!tok) {
    notice('no token: open this page with #token=<attach token> at the end of its address');
    setRoom('stopped');
    return;
  }

  let backoff = BACKOFF_MIN;
  let stopped = false;
  let imeBudget = 0;
  let penSeen = false;
  let probe: { ch: number; t0: number; parsed: boolean } | null = null;

  function notice(s: string): void { $('notice').textContent = s; }
  function setRoom(s: string): void {
    status.room = s;
    const el = $('room');
    el.textContent = s;
    el.className = 'chip ' + s;
  }
  function send(m: Uint8Array | null): void {
    if (m && ws && ws.readyState === WebSocket.OPEN) ws.send(m);
  }
  function showPen(): void {
    const el = $('pen');
    el.textContent = status.holding ? 'pen: you' : status.holder ? 'pen: ' + status.holder : 'pen: free';
    el.className = 'chip' + (status.holding ? ' you' : '');
    const btn = $('pen-button') as HTMLButtonElement;
    btn.hidden = !driver;
    btn.textContent = status.holding ? 'Release the pen' : 'Take the pen';
  }
  function showPresence(): void {
    // The pen messages are newer than a presence list's driving flags.
    const driving = (m: Member) => (penSeen ? m.connId === status.holderConn && m.connId !== '' : m.driving);
    const names = status.members.map((m) => m.userId + (driving(m) ? ' (driving)' : '') + (m.role === 'viewer' ? ' (viewing)' : ''));
    $('presence').textContent = names.length + ' here: ' + names.join(', ');
  }
  function advertise(): void {
    const d = fit.proposeDimensions();
    if (d && eng) send(eng.viewport(d.cols, d.rows));
  }

  // typedByPerson tells keys from replies: see PERSON_EVENTS. IME text
  // arrives from xterm in a timer after compositionend; that one piece of
  // data is let through.
  function typedByPerson(): boolean {
    const ev = (window as any).event as Event | undefined;
    if (ev && ev.isTrusted && PERSON_EVENTS.has(ev.type)) return true;
    if (imeBudget > 0) { imeBudget--; return true; }
    return false;
  }
  $('term').addEventListener('compositionend', (e) => {
    if (!e.isTrusted) return;
    imeBudget = 1;
    setTimeout(() => { imeBudget = 0; }, 50);
  }, true);
  // The latency probe (BenchmarkBrowserEcho): a typed character's keydown
  // is timed to the first render after xterm parsed output holding it.
  $('term').addEventListener('keydown', (e) => {
    if (e.isTrusted && e.key.length === 1) probe = { ch: e.key.charCodeAt(0), t0: performance.now(), parsed: false };
  }, true);
  term.onRender(() => {
    if (probe && probe.parsed) {
      status.latencies.push(performance.now() - probe.t0);
      probe = null;
    }
  });

  function typed(data: Uint8Array): void {
    if (!typedByPerson()) { status.repliesDropped++; return; }
    if (!eng) return;
    const m = eng.input(data);
    if (m) { status.inputsSent++; send(m); }
  }
  term.onData((d) => typed(new TextEncoder().encode(d)));
  term.onBinary((d) => typed(Uint8Array.from(d, (ch) => ch.charCodeAt(0) & 0xff)));

  $('pen-button').addEventListener('click', () => {
    if (eng) send(status.holding ? eng.release() : eng.grab());
    term.focus();
  });
  let resizeTimer = 0;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = window.setTimeout(() => { if (status.holding) advertise(); }, 100);
  });

  function handle(evs: Ev[]): void {
    for (const ev of evs) {
      switch (ev.kind) {
        case 'write': {
          const data = ev.data as Uint8Array;
          if (probe && !probe.parsed && data.includes(probe.ch)) {
            const p = probe;
            term.write(data, () => { p.parsed = true; });
          } else {
            term.write(data);
          }
          break;
        }
        case 'size':
          if (ev.text === 'snapshot') status.snapshots++;
          if (ev.cols! > 0 && ev.rows! > 0 && (ev.cols !== term.cols || ev.rows !== term.rows)) term.resize(ev.cols!, ev.rows!);
          break;
        case 'send':
          send(ev.data!);
          break;
        case 'room':
          setRoom(ev.text!);
          break;
        case 'presence':
          status.members = ev.members ?? [];
          showPresence();
          break;
        case 'pen': {
          const gained = ev.holding && !status.holding;
          status.holding = !!ev.holding;
          status.holder = ev.text ?? '';
          status.holderConn = ev.message ?? '';
          penSeen = true;
          showPen();
          showPresence();
          if (gained) advertise();
          break;
        }
        case 'marker':
          notice('marker: ' + ev.text);
          break;
        case 'exit': {
          status.exit = ev.text ? `ended by ${ev.text} (status ${ev.code})` : `exited with status ${ev.code}`;
          const el = $('exit');
          el.textContent = 'The session ' + status.exit + '.';
          el.hidden = false;
          break;
        }
        case 'error':
          status.error = ev.text!;
          notice(`relay: ${ev.text}: ${ev.message}`);
          if (!ev.retryable && ev.text !== 'ring-miss' && ev.text !== 'host-lost' && ev.text !== 'host-still-absent') stopped = true;
          break;
      }
    }
  }

  function connect(): void {
    const url = (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + path;
    const sock = new WebSocket(url, [SUBPROTOCOL, 'bearer.' + b64url(tok)]);
    sock.binaryType = 'arraybuffer';
    ws = sock;
    sock.onopen = () => {
      if (sock.protocol !== SUBPROTOCOL) {
        sock.close(1002, 'version subprotocol not negotiated');
        return;
      }
      status.connected = true;
      status.connects++;
      notice('');
      const d = fit.proposeDimensions();
      const msgs = eng!.subscribe(d?.cols ?? 0, d?.rows ?? 0);
      if (typeof msgs === 'string') { notice(msgs); sock.close(1011, 'internal'); return; }
      for (const m of msgs) sock.send(m);
    };
    sock.onmessage = (e) => {
      if (typeof e.data === 'string') { sock.close(1003, 'binary frames only'); return; }
      backoff = BACKOFF_MIN;
      const evs = eng!.apply(new Uint8Array(e.data as ArrayBuffer));
      if (typeof evs === 'string') { notice(evs); sock.close(1002, 'framing error'); return; }
      handle(evs);
    };
    sock.onclose = (e) => {
      status.connected = false;
      if (ws !== sock) return;
      ws = null;
      if (status.room === 'ended' && e.code === 1000) stopped = true;
      if (stopped) {
        if (status.room !== 'ended') setRoom('stopped');
        return;
      }
      if (status.room !== 'ended') setRoom('offline');
      const wait = backoff / 2 + Math.random() * (backoff / 2);
      backoff = Math.min(backoff * 2, BACKOFF_MAX);
      // The relay refuses an expired token before the upgrade, which a
      // page sees only as a failed connection: say what is likely.
      const expired = c.exp !== undefined && c.exp * 1000 < Date.now();
      notice((expired ? 'the link\'s token has expired: ask for a new link; ' : '') +
        `disconnected (${e.code}${e.reason ? ' ' + e.reason : ''}); reconnecting in ${(wait / 1000).toFixed(1)} s`);
      setTimeout(connect, wait);
    };
  }

  const base = new URL('../../viewer/', location.href).href;
  loadEngine(base).then(() => {
    const made = ptyhostEngine({ sessionId, connId: c.jti ?? '', driver });
    if (typeof made === 'string') throw new Error(made);
    eng = made;
    const d = fit.proposeDimensions();
    if (d) term.resize(d.cols, d.rows);
    showPen();
    connect();
    term.focus();
  }).catch((err) => {
    notice('cannot start the viewer: ' + err);
    setRoom('stopped');
  });
}

main();

// The browser viewer: one leg to a room, drawn by xterm.js. The leg
// rides a WebSocket or, after three failed WebSocket dials, the degraded
// lane: an EventSource on …/sse?ticket= (a ticket fetched from
// …/sse-ticket with the attach token) down, batched POSTs to …/input up.
// The protocol (frames, snapshots, controls, the sanitizer, the pen and
// input sequencing) runs in Go compiled to WebAssembly (web/engine), and
// so does the screen: the host's own terminal engine keeps it, and
// xterm.js only renders the paint of what changed on it (web/screen),
// measuring characters as the engine does (src/widths.ts). This file owns
// the socket, the terminal, the widgets and reconnection.
import { Terminal } from '@xterm/xterm';
import { FitAddon } from '@xterm/addon-fit';
import { Commands } from './commands';
import { Rewind } from './rewind';
import { Proposals, type ProposalEv } from './proposals';
import { TouchKeys } from './touchkeys';
import { screenReaderOn, screenReaderSwitch } from './screenreader';
import { Boot, SCROLLBACK, SUBPROTOCOL, b64url, dial, engineOptions, fragment, mark, roomPath, wsURL, type EarlyPaint, type EngineOptions } from './link';
import { claims, errorRefusal, expired, localRefusal, roomOf, ticketRefusal } from './refusal';
import { readGrid } from './grid';
import { knownWidths, useEngineWidths } from './widths';

interface Member { userId: string; connId: string; role: string; driving: boolean; name?: string; guest?: boolean }
interface Ev {
  kind: string; data?: Uint8Array; cols?: number; rows?: number; text?: string;
  message?: string; code?: number; retryable?: boolean; final?: boolean; holding?: boolean; members?: Member[];
  input?: boolean; mark?: string; command?: string; status?: number; proposal?: ProposalEv;
}
interface Engine {
  subscribe(cols: number, rows: number): Uint8Array[] | string;
  apply(msg: Uint8Array): Ev[] | string;
  input(data: Uint8Array): Uint8Array[] | string;
  viewport(cols: number, rows: number): Uint8Array | null;
  grab(): Uint8Array;
  release(): Uint8Array;
  ping(): Uint8Array;
  holding(): boolean;
  decide(id: string, verdict: string, text: string, reason: string): Uint8Array | string;
  propose(text: string): Uint8Array | string;
  fromVisible(s: string): string;
  applied(): { seq: number; epoch: number; ok: boolean };
  sealed(): string; // a sealed room's key id, '' for a plain room
  pending(max: number, maxBytes?: number): { msgs: Uint8Array[]; first: number };
  // The degraded lane's wire, in Go (attachwire): a POST's body, the
  // reading of its answer, and of an SSE event's frame.
  laneBatch(maxInputs: number, maxBytes: number, controls: Uint8Array[]): { body: string; inputs: number; last: number } | string;
  laneAck(answer: string): LaneAnswer | string;
  applyLane(data: string): Ev[] | string;
}
interface LaneAnswer { ack: number; events: Ev[] }
declare function ptyhostRetryAfter(value: string): number;
declare function ptyhostBackoff(attempt: number, atLeastMs: number): number;
declare function ptyhostEngine(o: EngineOptions): Engine | string;
// The status line's words are Go's (package status), shared with
// `ptyhost attach`: the page says what its parts say, in its chips.
interface StatusPart { kind: string; text: string; class: string }
declare function ptyhostStatus(s: {
  connId: string; link: string; lane: boolean; room: string; penKnown: boolean; penMine: boolean;
  penUser: string; penConn: string; members: Member[];
}, width: number): { line: string; persistent: boolean; parts: StatusPart[] } | string;

// The most a Retry-After may hold the page back (the redial backoff's own
// bounds are the Go peers', in ptyhostBackoff).
const RETRY_AFTER_MAX = 30000;
// The relay's keepalive rule (docs/relay.md, "Keepalive and limits"): a
// ping after PING_MS of quiet, the carrier dropped after SILENCE_MS.
const PING_MS = 10000, SILENCE_MS = 25000;
// The lane: WebSocket dials failed in a row before it, the upgrade probe's
// period (#probe=<ms> overrides it), the POST retry bounds, the inputs
// one batch carries at most, and the controls held for the next carrier.
const FALLBACK_AFTER = 3, PROBE_MS = 30000, POST_RETRIES = 8, BATCH_INPUTS = 256, HELD_MAX = 256;
// BATCH_BYTES bounds the Input messages one POST carries, in bytes before
// base64 (which makes them 4/3): the body stays far under the relay's
// limit on a viewer's POST (2 MiB + 64 KiB by default, twice its 1 MiB
// message limit; 413 past it). The engine splits a paste into messages
// of 64 KiB of data, so one always fits.
const BATCH_BYTES = 256 << 10;

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
  members: Member[]; exit: string; error: string; inputsSent: number; inputsRefused: number; repliesDropped: number;
  latencies: number[]; carrier: string; laneConnects: number; held: number;
  // refusal is the sentence that says why the link does not get in, once
  // the page knows; it stays.
  refusal: string;
}

const $ = (id: string) => document.getElementById(id) as HTMLElement;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

// retryAfterMs reads a Retry-After header with the Go peers' parser
// (attachwire.ParseRetryAfter, exported by the engine's WebAssembly):
// delta-seconds or an HTTP date, 0 meaning at once. It is capped at
// RETRY_AFTER_MAX; without a usable one it is dflt.
function retryAfterMs(h: string | null, dflt: number): number {
  const ms = h === null ? -1 : ptyhostRetryAfter(h);
  return ms < 0 ? dflt : Math.min(ms, RETRY_AFTER_MAX);
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

// main runs the page. redeemed is the token an invite's short link was
// traded for (see redeemInvite); without it the token is the fragment's.
// shortKey is a short link's room key (#SECRET.KEY); without it a sealed
// room's key is the fragment's key=.
function main(boot: Boot, redeemed?: string, shortKey?: string): void {
  const marks = boot.marks;
  mark(marks, 'app');
  const params = fragment();
  const tok = redeemed ?? params.get('token') ?? '';
  const roomKey = shortKey ?? params.get('key') ?? '';
  const path = roomPath();
  const sessionId = roomOf(path);
  // The token's claims, read for display and routing only (the role
  // decides whether a pen button is shown; the jti names this
  // connection): the relay verifies the signature.
  const c = claims(tok) ?? {};
  const driver = c.role === 'driver';
  // A proposer's input needs approval: it never holds the pen, and
  // proposes lines from the propose bar instead of typing.
  const proposer = driver && c.prop === true;
  const status: Status = {
    connected: false, connects: 0, snapshots: 0, room: 'connecting', holding: false, holder: '', holderConn: '', members: [],
    exit: '', error: '', inputsSent: 0, inputsRefused: 0, repliesDropped: 0, latencies: [], carrier: '', laneConnects: 0, held: 0,
    refusal: '',
  };
  // The test switch: #nows=1 makes every WebSocket dial fail, as behind a
  // proxy that breaks WebSocket; the tests flip it with blockWebSocket.
  let blockWS = params.get('nows') === '1';
  const probeMs = Number(params.get('probe')) || PROBE_MS;
  // And #silence=MS shortens the keepalive (a ping after a fifth of it),
  // so a test sees a black-holed path noticed in a second.
  const silenceMs = Number(params.get('silence')) || SILENCE_MS;
  const pingMs = params.get('silence') ? silenceMs / 5 : PING_MS;
  const laneBase = location.origin + path;

  let eng: Engine | null = null;
  let ws: WebSocket | null = null;
  const termOptions = {
    // Proposed API: the gutter's command blocks are decorations, which
    // xterm.js 6 still counts as proposed. It gates our calls only,
    // nothing the stream can reach.
    cursorBlink: false, scrollback: SCROLLBACK, allowProposedApi: true,
    fontFamily: 'DejaVu Sans Mono, Menlo, Consolas, monospace', fontSize: 14,
    // At the default height some fonts' underscores fall outside the cell.
    lineHeight: 1.2,
    theme: { background: '#000000', foreground: '#e5e5e5' },
    screenReaderMode: screenReaderOn(),
  };
  const term = new Terminal(termOptions);
  const fit = new FitAddon();
  term.loadAddon(fit);
  swallowQueries(term);
  term.open($('term'));
  screenReaderSwitch($('sr-button') as HTMLButtonElement, () => [term]);
  const commands = new Commands(term, $('command-list'), $('command-count'));
  const proposals = new Proposals($('proposals'), $('proposal-list'), {
    decide: (id, verdict, text, reason) => {
      if (!eng) return 'not connected';
      const f = eng.decide(id, verdict, text, reason);
      if (typeof f === 'string') return f;
      send(f);
      return null;
    },
    fromVisible: (s) => (eng ? eng.fromVisible(s) : s),
  }, (s) => notice(s));
  // notice and showStatus are hoisted: the rewind reports through them.
  const rewind = new Rewind(laneBase, tok, sessionId, term, termOptions, (s) => notice(s), roomKey, () => showStatus());
  // The tests read the terminal and the status, and cut the connection
  // as a network would (drop), to see the page resume.
  const hooks = {
    term, status, marks, drop: () => { ws?.close(4000, 'dropped'); },
    blockWebSocket: (on: boolean) => { blockWS = on; },
    commands: () => commands.snapshot(), jumpCommand: (dir: -1 | 1) => commands.jump(dir),
    commandErrors: () => commands.errors,
    proposals: () => proposals.pending(), proposalOutcomes: () => proposals.outcomes,
    historyIndex: () => rewind.open(), rewindTo: (seq: number, end?: number) => rewind.rewindTo(seq, end),
    search: (q: string) => rewind.search(q), replayScreen: () => rewind.screen(), showLive: () => rewind.show(false),
    historyUnreadable: () => rewind.unreadable,
  };
  // #grid=1 gives the tests the screen cell for cell (src/grid.ts) and
  // the last seq applied.
  if (params.get('grid') === '1') {
    Object.assign(hooks, { grid: () => readGrid(term), applied: () => eng?.applied() ?? null });
  }
  (window as any).ptyhostViewer = hooks;

  if (!tok) {
    notice('no token: open this page with #token=<attach token> at the end of its address');
    setRoom('stopped');
    return;
  }
  const local = localRefusal(tok, sessionId, Date.now());
  if (local) {
    boot.ws?.close(1000, 'link refused'); // the boot script does not dial such a link
    status.refusal = local;
    notice(local);
    setRoom('stopped');
    return;
  }

  let attempts = 0; // redials since the relay was last heard
  let stopped = false;
  let imeBudget = 0;
  let penSeen = false;
  let probe: { ch: number; t0: number; parsed: boolean } | null = null;

  // notice shows a line of news; once a refusal is known it alone stays.
  function notice(s: string): void {
    if (!status.refusal || s === status.refusal) $('notice').textContent = s;
  }
  // setCarrier records the carrier a leg came up on and shows whether the
  // page rides the degraded lane: room_state says how the host is
  // connected, not how this page is.
  function setCarrier(c: string): void {
    status.carrier = c;
    showStatus();
  }
  function setRoom(s: string): void {
    status.room = s;
    showStatus();
  }
  // send hands a message to the open carrier. An Input needs no queue: the
  // engine keeps it until acknowledged, every new leg resends it after its
  // subscribe and every lane POST carries what is unacknowledged. A control
  // (grab, release, the viewport, resume_from) with no admitted leg (a
  // reconnect, the switch between WebSocket and the lane) is held and goes
  // out once, in order, on the next leg the relay admits: a WebSocket leg
  // once its first frame other than an error arrives (the relay refuses a
  // leg after the handshake, with an error, and what was sent on it is
  // lost), a lane leg with its first POST. A new viewport replaces a held
  // one.
  function send(m: Uint8Array | null, kind: 'input' | 'control' | 'viewport' = 'control'): void {
    if (!m || !eng) return;
    const input = kind === 'input', viewport = kind === 'viewport';
    if (ws && ws.readyState === WebSocket.OPEN && (input || (wsAdmitted && held.length === 0))) {
      ws.send(m);
      return;
    }
    if (!input) hold(m, viewport);
    if (lane && laneOpen) void flushLane();
  }
  function hold(m: Uint8Array, viewport: boolean): void {
    if (viewport) {
      if (heldViewport) held = held.filter((h) => h !== heldViewport);
      heldViewport = m;
    }
    held.push(m);
    if (held.length > HELD_MAX) held.shift();
    status.held = held.length;
  }
  // takeHeld returns the held controls (oldest first) and holds no more.
  function takeHeld(): Uint8Array[] {
    const out = held;
    held = [];
    heldViewport = null;
    status.held = 0;
    return out;
  }
  // unsent puts back controls a carrier refused before applying them,
  // ahead of those held since.
  function unsent(ms: Uint8Array[]): void {
    held = ms.concat(held).slice(-HELD_MAX);
    status.held = held.length;
  }
  // showStatus shows the status parts in their chips (a part left out
  // for want of room hides its chip) and the pen button. status.room is
  // the relay's room state or, while no leg is up, the page's own.
  function showStatus(): void {
    const btn = $('pen-button') as HTMLButtonElement;
    btn.hidden = !driver || proposer;
    btn.textContent = status.holding ? 'Release the pen' : 'Take the pen';
    if (typeof ptyhostStatus !== 'function') {
      $('room').textContent = status.room; // the engine is not loaded (yet)
      return;
    }
    const link = ({ connecting: 'connecting', offline: 'reconnecting', stopped: 'stopped' } as Record<string, string>)[status.room] ?? 'connected';
    const view = ptyhostStatus({
      connId: c.jti ?? '', link, lane: status.carrier === 'lane', room: status.room, penKnown: penSeen,
      penMine: status.holding, penUser: status.holder, penConn: status.holderConn, members: status.members,
    }, term.cols);
    if (typeof view === 'string') { notice(view); return; }
    for (const id of ['room', 'carrier', 'pen', 'presence']) {
      const part = view.parts.find((p) => p.kind === id);
      const el = $(id);
      el.hidden = !part;
      if (!part) continue;
      el.textContent = part.text;
      el.className = 'chip' + (part.class ? ' ' + part.class : '');
    }
    // The room's state is the live session's: while the screen in view
    // is the past's, the room chip says so first, lest "live" be read as
    // what is shown. A room in trouble keeps its words and colour after.
    const roomEl = $('room');
    roomEl.title = rewind.at ? 'the screen shows the session\'s past: Live returns to it' : 'room state';
    if (rewind.at && !roomEl.hidden) {
      const live = roomEl.classList.contains('live');
      roomEl.textContent = 'rewound to ' + rewind.at + (live ? '' : ' · ' + roomEl.textContent);
      if (live) roomEl.className = 'chip rewound';
    }
  }
  function advertise(): void {
    const d = fit.proposeDimensions();
    if (d && eng) send(eng.viewport(d.cols, d.rows), 'viewport');
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
    sendTyped(data);
  }
  // cannotType says why what a person types does not reach the program
  // now, or '' when it does.
  function cannotType(): string {
    if (!eng) return 'the viewer is still starting';
    if (proposer) return 'your input needs approval: write it in the propose bar';
    if (status.holding) return '';
    return driver ? 'you do not hold the pen: take it to type' : 'this link only views: it cannot type';
  }
  // sendTyped sends what a person typed, tapped or pasted; without the
  // pen it says why nothing went.
  function sendTyped(data: Uint8Array): void {
    const why = cannotType();
    if (why) {
      notice(why);
      if (proposer) ($('propose-text') as HTMLInputElement).focus();
      return;
    }
    if (!eng) return;
    // A paste comes as several messages, in order, whole or not at all;
    // when not at all (too much still awaits the relay's ack), the person
    // is told, never left to think it went.
    const msgs = eng.input(data);
    if (typeof msgs === 'string') { status.inputsRefused++; notice(msgs); return; }
    for (const m of msgs) { status.inputsSent++; send(m, 'input'); }
  }
  const keys = new TouchKeys($('touchkeys'), {
    send: sendTyped, notice,
    refusal: cannotType,
    appCursor: () => term.modes.applicationCursorKeysMode,
    bracketed: () => term.modes.bracketedPasteMode,
  });
  term.onData((d) => typed(new TextEncoder().encode(keys.modify(d))));
  term.onBinary((d) => typed(Uint8Array.from(d, (ch) => ch.charCodeAt(0) & 0xff)));

  // The propose bar: a proposer's line goes to the host as a proposal,
  // with Enter at its end, and waits for the pen holder or the sharer.
  $('propose-bar').hidden = !proposer;
  $('propose-bar').addEventListener('submit', (e) => {
    e.preventDefault();
    const box = $('propose-text') as HTMLInputElement;
    if (!eng || box.value === '') return;
    const f = eng.propose(box.value + '\r');
    if (typeof f === 'string') { notice('not proposed: ' + f); return; }
    send(f);
    box.value = '';
    notice('proposed: it waits for approval');
  });

  $('rewind-button').addEventListener('click', () => {
    const tl = $('timeline');
    tl.hidden = !tl.hidden;
    if (tl.hidden) rewind.show(false);
    else rewind.open().catch((e) => notice(String(e.message ?? e)));
  });
  $('scrub').addEventListener('input', () => {
    const seq = Number(($('scrub') as HTMLInputElement).value);
    rewind.rewindTo(seq).catch((e) => notice(String(e.message ?? e)));
  });
  $('live-button').addEventListener('click', () => rewind.show(false));
  $('search').addEventListener('keydown', (e) => {
    if (e.key !== 'Enter') return;
    const q = ($('search') as HTMLInputElement).value;
    if (q) rewind.search(q).catch((err) => notice(String(err.message ?? err)));
  });
  $('command-prev').addEventListener('click', () => commands.jump(-1));
  $('command-next').addEventListener('click', () => commands.jump(1));
  $('commands-button').addEventListener('click', () => {
    $('commands').hidden = !$('commands').hidden;
    if (status.holding) advertise(); // the room for the terminal changed
  });
  $('pen-button').addEventListener('click', () => {
    if (eng) send(status.holding ? eng.release() : eng.grab());
    term.focus();
  });
  let resizeTimer = 0;
  window.addEventListener('resize', () => {
    clearTimeout(resizeTimer);
    resizeTimer = window.setTimeout(() => { if (status.holding) advertise(); showStatus(); }, 100);
  });

  // writeOut writes a paint to the terminal. The first snapshot's, once
  // parsed, is the first paint: the page's engine may start after the
  // frame that draws it (boot.release).
  function writeOut(data: Uint8Array): void {
    if ('snapshot' in marks && !('drawn' in marks)) {
      term.write(data, () => {
        mark(marks, 'drawn');
        requestAnimationFrame(() => setTimeout(boot.release, 0));
      });
    } else if (probe && !probe.parsed && data.includes(probe.ch)) {
      const p = probe;
      term.write(data, () => { p.parsed = true; });
    } else {
      term.write(data);
    }
  }
  function sized(ev: { text?: string; cols?: number; rows?: number }): void {
    if (ev.text === 'snapshot') mark(marks, 'snapshot');
    if (ev.cols! > 0 && ev.rows! > 0 && (ev.cols !== term.cols || ev.rows !== term.rows)) term.resize(ev.cols!, ev.rows!);
  }

  function handle(evs: Ev[]): void {
    for (const ev of evs) {
      switch (ev.kind) {
        case 'write':
          if (!replayingDrawn) writeOut(ev.data as Uint8Array);
          break;
        case 'size':
          if (ev.text === 'snapshot') status.snapshots++;
          sized(ev);
          break;
        case 'send':
          send(ev.data!, ev.input ? 'input' : 'control');
          break;
        case 'room':
          setRoom(ev.text!);
          break;
        case 'presence':
          status.members = ev.members ?? [];
          showStatus();
          break;
        case 'pen': {
          const gained = ev.holding && !status.holding;
          status.holding = !!ev.holding;
          status.holder = ev.text ?? '';
          status.holderConn = ev.message ?? '';
          penSeen = true;
          proposals.setHolding(status.holding);
          showStatus();
          if (gained) advertise();
          break;
        }
        case 'marker':
          if (ev.mark) {
            // The shell's command marks: the commands bar shows once the
            // first command comes.
            if (ev.mark === 'proposal') break; // the panel says it already
            if (ev.mark === 'command') $('commands-bar').hidden = false;
            commands.mark(ev);
          } else {
            notice('marker: ' + ev.text);
          }
          break;
        case 'proposal':
          if (ev.proposal) proposals.update(ev.proposal);
          break;
        case 'exit': {
          status.exit = ev.text ? `ended by ${ev.text} (status ${ev.code})` : `exited with status ${ev.code}`;
          const el = $('exit');
          el.textContent = 'The session ' + status.exit + '.';
          el.hidden = false;
          break;
        }
        case 'error': {
          status.error = ev.text!;
          const why = errorRefusal(ev.text!, ev.message ?? '', tok, sessionId, Date.now());
          if (why && ev.final) {
            refuse(why);
          } else if (why) {
            hint = why;
            notice(why);
          } else {
            notice(`relay: ${ev.text}: ${ev.message}`);
          }
          if (ev.final) stopped = true;
          break;
        }
      }
    }
  }

  // The lane's state: the EventSource (laneOpen once the relay bound it),
  // whether a POST is in flight, the controls held for the next carrier,
  // and the counts that move the page between carriers: WebSocket dials
  // and lane legs failed in a row, POSTs the relay refused in a row (410),
  // 409s in a row, and whether a 401 already cost a fresh lane leg.
  let lane: EventSource | null = null;
  let laneOpen = false;
  let onLane = false;
  let posting = false;
  let held: Uint8Array[] = [];
  let heldViewport: Uint8Array | null = null;
  let wsAdmitted = false; // the relay admitted the leg on ws (see send)
  let wsFails = 0, laneFails = 0, refusedPosts = 0, conflicts = 0;
  let reauthed = false;
  let probeTimer = 0;
  let heard = 0, pinged = 0; // when the relay was last heard, and pinged
  // hint is what the relay last said about this link that a new dial may
  // mend (it is open in another tab), shown until a leg is admitted.
  let hint = '';

  // retry schedules the next dial after a lost or failed leg, no sooner
  // than atLeast ms (a Retry-After).
  function retry(why: string, atLeast = 0): void {
    status.connected = false;
    if (stopped) {
      if (status.room !== 'ended') setRoom('stopped');
      return;
    }
    // A token that expired during the session gets no new leg.
    if (typeof c.exp === 'number' && c.exp * 1000 <= Date.now()) {
      refuse(expired(c.exp));
      return;
    }
    if (status.room !== 'ended') setRoom('offline');
    const wait = ptyhostBackoff(attempts++, atLeast);
    const when = `${(wait / 1000).toFixed(1)} s`;
    notice(hint ? `${hint} Trying again in ${when}.` : `disconnected (${why}); reconnecting in ${when}`);
    setTimeout(connect, wait);
  }

  // refuse stops the page for good with the sentence that says why the
  // link does not get in.
  function refuse(why: string): void {
    status.refusal = why;
    stopped = true;
    status.connected = false;
    $('notice').textContent = why;
    const sock = ws;
    ws = null;
    sock?.close(1000, 'link refused');
    const es = lane;
    lane = null;
    laneOpen = false;
    es?.close();
    clearInterval(probeTimer);
    setRoom('stopped');
  }

  // askWhy asks the relay why a WebSocket dial did not open: the lane's
  // ticket endpoint verifies the token as the upgrade does and, unlike
  // the upgrade, lets the page read its answer. A ticket it grants is
  // simply not used.
  async function askWhy(): Promise<void> {
    try {
      const r = await fetch(laneBase + '/sse-ticket', { method: 'POST', headers: { Authorization: 'Bearer ' + tok } });
      if (r.status !== 401 && r.status !== 403) return;
      const why = ticketRefusal(r.status, await r.text(), tok, sessionId, Date.now());
      if (why && !stopped) refuse(why);
    } catch {
      // Unreachable: the dials go on, and say so.
    }
  }

  // wsFailed counts a WebSocket dial that never opened; the third in a
  // row moves the page to the lane at once.
  function wsFailed(why: string): void {
    if (++wsFails === 1) void askWhy();
    if (wsFails >= FALLBACK_AFTER) {
      wsFails = 0;
      onLane = true;
      notice('WebSocket does not get through: using the SSE lane');
      setTimeout(connect, 0);
      return;
    }
    retry(why);
  }

  // laneDown ends the lane leg. unavailable (a 404, a refusal no new leg
  // mends) or a third failure in a row sends the page back to WebSocket
  // dials, so a relay without the lane never strands it; atLeast is a
  // Retry-After to wait before the next dial.
  function laneDown(why: string, unavailable: boolean, atLeast = 0): void {
    const es = lane;
    lane = null;
    laneOpen = false;
    es?.close();
    clearInterval(probeTimer);
    if (unavailable || ++laneFails >= FALLBACK_AFTER) {
      onLane = false;
      laneFails = 0;
      refusedPosts = 0;
    }
    retry(why, atLeast);
  }

  // connectLane opens a lane leg: a ticket for the attach token, then the
  // EventSource on …/sse?ticket=, resuming from the last seq applied. The
  // ticket is single-use and an EventSource's own retry would present it
  // again, so every error closes the leg and the page dials anew.
  async function connectLane(): Promise<void> {
    let ticket = '';
    try {
      const r = await fetch(laneBase + '/sse-ticket', { method: 'POST', headers: { Authorization: 'Bearer ' + tok } });
      if (r.status === 401 || r.status === 403) {
        // The token itself is refused: no new dial mends that.
        const why = ticketRefusal(r.status, await r.text(), tok, sessionId, Date.now());
        refuse(why || `the relay refuses this link's token (HTTP ${r.status}): ask for a new link`);
        laneDown(`ticket refused: HTTP ${r.status}`, false);
        return;
      }
      if (!r.ok) {
        const wait = r.status === 429 || r.status === 503 ? retryAfterMs(r.headers.get('Retry-After'), 0) : 0;
        laneDown(`ticket: HTTP ${r.status}`, r.status === 404, wait);
        return;
      }
      ticket = (await r.json()).ticket;
    } catch (err) {
      laneDown('ticket: ' + err, false);
      return;
    }
    const at = eng!.applied();
    let q = '?ticket=' + encodeURIComponent(ticket);
    if (at.ok) q += '&resume_from=' + at.seq + '&epoch=' + at.epoch;
    if (eng!.sealed()) q += '&sealed=' + eng!.sealed();
    const es = new EventSource(laneBase + '/sse' + q);
    lane = es;
    laneOpen = false;
    es.onopen = () => {
      if (lane !== es) return;
      laneOpen = true;
      hint = '';
      heard = Date.now();
      laneFails = 0;
      status.connected = true;
      status.connects++;
      status.laneConnects++;
      setCarrier('lane');
      notice('');
      // The GET joined the room (the lane has no subscribe); the first
      // POST carries what awaits an ack and the held controls.
      if (status.holding) advertise();
      void flushLane();
      clearInterval(probeTimer);
      probeTimer = window.setInterval(probeUpgrade, probeMs);
    };
    es.addEventListener('frame', (e) => {
      if (lane !== es) return;
      heard = Date.now();
      attempts = 0;
      const evs = eng!.applyLane((e as MessageEvent).data);
      if (typeof evs === 'string') { notice(evs); laneDown('framing error', false); return; }
      handle(evs);
      if (stopped) laneDown('refused', false); // retry sees stopped and does not dial
    });
    es.onerror = () => {
      if (lane !== es) return;
      if (status.room === 'ended') stopped = true;
      laneDown('lane dropped', false);
    };
  }

  // flushLane posts one batch: the inputs not yet acknowledged (contiguous
  // from the ack, as the engine keeps them, so a batch refused or lost is
  // simply carried again by the next; at most BATCH_INPUTS of them and
  // BATCH_BYTES) and the held controls. One POST is in flight at a time;
  // what comes meanwhile, or did not fit, goes in the next.
  async function flushLane(): Promise<void> {
    if (posting || !lane || !laneOpen || !eng) return;
    if (eng.pending(1).msgs.length === 0 && held.length === 0) return;
    posting = true;
    const es = lane;
    const controls = takeHeld();
    const batch = eng.laneBatch(BATCH_INPUTS, BATCH_BYTES, controls);
    if (typeof batch === 'string') {
      posting = false;
      notice(batch);
      laneDown('lane batch: ' + batch, false);
      return;
    }
    const last = batch.last;
    let again = false;
    try {
      again = await postBatch(es, batch.body, controls, last);
    } finally {
      posting = false;
    }
    if (again) void flushLane();
  }

  // postBatch delivers one batch body (retries keep its batchId, which
  // the relay answers once) and reports whether another batch should
  // follow at once. 200 and 409 carry the ack; a 409 refused the batch
  // whole, so its controls are held again and the next batch starts at
  // ack+1 (the engine renumbers if the relay lost this connection's
  // sequence). 429 waits Retry-After; network errors and 5xx retry with a
  // backoff. 410 (the relay has no SSE leg for this token any more)
  // reopens the lane with a new ticket; 401 and 403 do so once, the
  // ticket then telling whether the token still holds; 404, or anything
  // else refused, sends the page back to WebSocket. Controls of a batch
  // the relay did not apply are held for the next batch or carrier; after
  // a 429 the relay has run them, so they are not sent again.
  async function postBatch(es: EventSource, body: string, controls: Uint8Array[], last: number): Promise<boolean> {
    let ran = false; // the relay ran the controls (it answers 429 after them)
    const giveUp = (why: string, unavailable: boolean): boolean => {
      if (!ran) unsent(controls);
      if (lane === es) laneDown(why, unavailable);
      return false;
    };
    for (let attempt = 1; ; attempt++) {
      if (lane !== es) return giveUp('', false);
      let r: Response | null = null;
      let answer: LaneAnswer | string | null = null;
      try {
        r = await fetch(laneBase + '/input', {
          method: 'POST', body, headers: { Authorization: 'Bearer ' + tok, 'Content-Type': 'application/json' },
        });
        if (r.status === 200 || r.status === 409) answer = eng!.laneAck(await r.text());
      } catch {
        r = null; // unreachable, or an answer cut short: as a network error
      }
      const st = r ? r.status : 0;
      if ((st === 200 || st === 409) && answer !== null && typeof answer !== 'string') {
        const ack = answer.ack;
        handle(answer.events);
        if (st === 200) {
          reauthed = false;
          refusedPosts = 0;
          conflicts = 0;
          return held.length > 0 || (ack >= last && eng!.pending(1).msgs.length > 0);
        }
        if (!ran) unsent(controls);
        if (++conflicts > POST_RETRIES) {
          conflicts = 0;
          if (lane === es) laneDown('input: HTTP 409 again and again', false);
          return false;
        }
        if (conflicts > 1) await sleep(Math.min(50 * conflicts, 1000));
        return true;
      }
      if (st === 429) {
        ran = true;
        // "0" again and again must not spin: at least a retry step.
        await sleep(Math.max(retryAfterMs(r!.headers.get('Retry-After'), 500), 50));
        continue;
      }
      if (st === 410) return giveUp('input: HTTP 410, reopening the lane', ++refusedPosts >= FALLBACK_AFTER);
      if (st === 401 || st === 403) {
        if (reauthed) {
          stopped = true;
          notice(`the relay refuses this link's token (HTTP ${st}): ask for a new link`);
        }
        reauthed = true;
        return giveUp(`input: HTTP ${st}`, false);
      }
      if (st === 0 || st >= 500) {
        if (attempt > POST_RETRIES) return giveUp('input: ' + (st ? `HTTP ${st}` : 'network error'), false);
        await sleep(Math.min(50 * attempt, 1000));
        continue;
      }
      return giveUp(`input: HTTP ${st}`, true);
    }
  }

  // probeUpgrade tries a WebSocket handshake while the page rides the lane;
  // the first that opens ends the lane once no POST is in flight (its ack
  // is in), and the page resumes on WebSocket: the subscribe resumes from
  // the last seq applied, then the unacknowledged inputs and the held
  // controls follow on the new leg.
  function probeUpgrade(): void {
    if (blockWS || !lane) return;
    const p = new WebSocket(wsURL(), [SUBPROTOCOL, 'bearer.' + b64url(tok)]);
    p.onopen = () => {
      p.close(1000, 'upgrade probe');
      if (p.protocol !== SUBPROTOCOL || !lane) return;
      clearInterval(probeTimer);
      const upgrade = () => {
        if (posting) { setTimeout(upgrade, 10); return; }
        const es = lane;
        lane = null;
        laneOpen = false;
        es?.close();
        status.connected = false;
        onLane = false;
        wsFails = 0;
        attempts = 0;
        connect();
      };
      upgrade();
    };
  }

  // keepalive is the relay's silence rule from the page's side. A page
  // cannot send WebSocket pings, and an EventSource shows no heartbeat
  // comments, so after PING_MS with nothing heard it sends a ping control,
  // which the relay answers; a carrier from which nothing arrived for
  // SILENCE_MS is dropped and the page redials, instead of waiting for TCP
  // to give up on a path that went silent without closing. The dropped
  // socket is let go, not waited for: on a dead path its close handshake
  // would never finish.
  function keepalive(): void {
    if (!eng || stopped || !status.connected) return;
    const quiet = Date.now() - heard;
    if (quiet >= silenceMs) {
      if (ws) {
        const sock = ws;
        ws = null;
        sock.close(4000, 'relay silent');
        retry('the relay went silent');
      } else if (lane) {
        laneDown('the relay went silent', false);
      }
      return;
    }
    if (quiet >= pingMs && Date.now() - pinged >= pingMs) {
      pinged = Date.now();
      send(eng.ping());
    }
  }

  // booted is the boot script's dial, which the first connect takes over.
  let booted: Boot | null = boot;
  function connect(): void {
    if (stopped) return;
    if (onLane) { void connectLane(); return; }
    if (blockWS) { wsFailed('WebSocket blocked by the test switch'); return; }
    const early = booted?.ws ? booted : null;
    booted = null;
    const sock = early ? early.ws! : dial(tok);
    ws = sock;
    wsAdmitted = false;
    let opened = false;
    sock.onopen = () => {
      if (sock.protocol !== SUBPROTOCOL) {
        sock.close(1002, 'version subprotocol not negotiated');
        return;
      }
      opened = true;
      mark(marks, 'open');
      heard = Date.now();
      wsFails = 0;
      setCarrier('websocket');
      status.connected = true;
      status.connects++;
      notice('');
      if (early?.subscribed) return; // the boot script subscribed on this dial
      const d = fit.proposeDimensions();
      const msgs = eng!.subscribe(d?.cols ?? 0, d?.rows ?? 0);
      if (typeof msgs === 'string') { notice(msgs); sock.close(1011, 'internal'); return; }
      for (const m of msgs) sock.send(m);
      mark(marks, 'subscribe');
    };
    sock.onmessage = (e) => {
      if (typeof e.data === 'string') { sock.close(1003, 'binary frames only'); return; }
      heard = Date.now();
      attempts = 0;
      const evs = eng!.apply(new Uint8Array(e.data as ArrayBuffer));
      if (typeof evs === 'string') { notice(evs); sock.close(1002, 'framing error'); return; }
      handle(evs);
      if (!wsAdmitted && ws === sock && sock.readyState === WebSocket.OPEN && !evs.some((ev) => ev.kind === 'error')) {
        wsAdmitted = true;
        hint = '';
        for (const m of takeHeld()) sock.send(m);
      }
    };
    sock.onclose = (e) => {
      status.connected = false;
      if (ws !== sock) return;
      ws = null;
      if (status.room === 'ended' && e.code === 1000) stopped = true;
      const why = `${e.code}${e.reason ? ' ' + e.reason : ''}`;
      if (!opened && !stopped) { wsFailed(why); return; }
      retry(why);
    };
    // What the boot dial did before the page took it, in order, as if
    // it happened now: the handlers above decide as for any dial.
    // The messages whose paint the boot script's worker drew are applied
    // without drawing it again.
    let m = 0;
    for (const e of early?.events ?? []) {
      if (e.type === 'open') sock.onopen!(e);
      else if (e.type === 'message') {
        replayingDrawn = m++ < drawnEarly;
        sock.onmessage!(e as MessageEvent);
        replayingDrawn = false;
      } else if (e.type === 'close') sock.onclose!(e as CloseEvent);
    }
  }

  // Until the page's engine runs, the boot script's worker paints the
  // dial's messages (boot.ts): each is drawn as it comes, in order.
  let drawnEarly = 0; // the dial's messages whose paint the worker drew
  let replayingDrawn = false; // the message being replayed is one of them
  let own = false; // the page's engine runs: the worker's paints are not wanted
  let sizedEarly = false; // a paint of the worker's sized the screen
  const drawEarly = (p: EarlyPaint) => {
    if (own || p.i !== drawnEarly) return;
    drawnEarly++;
    if (p.widths.length > 0) knownWidths(p.widths);
    useEngineWidths(term);
    for (const ev of p.evs) {
      if (ev.kind === 'size') {
        sized(ev);
        sizedEarly ||= ev.cols! > 0 && ev.rows! > 0;
      }
      else if (ev.kind === 'write' && ev.data) writeOut(ev.data);
    }
  };
  boot.onPaint = drawEarly;
  for (const p of boot.paints) drawEarly(p);

  boot.engine.then(() => {
    own = true;
    boot.onPaint = null;
    const made = (boot.eng as Engine | null) ?? ptyhostEngine(engineOptions(tok, roomKey));
    if (typeof made === 'string') throw new Error(made);
    eng = made;
    // The engine measures characters for the terminal.
    useEngineWidths(term);
    // The window's size until the relay says the screen's, unless the
    // worker's paint already set it: a resize between would make
    // xterm.js reflow the screen drawn.
    const d = fit.proposeDimensions();
    if (d && !sizedEarly) term.resize(d.cols, d.rows);
    showStatus();
    connect();
    window.setInterval(keepalive, Math.min(1000, pingMs / 2));
    term.focus();
  }).catch((err) => {
    notice('cannot start the viewer: ' + err);
    setRoom('stopped');
  });
}

// An invite's short link (…/s/<room>#<secret>) reaches this page with the
// bare secret as its fragment. The page trades it at the relay's issuer
// for a token of its own, under the name the person gives: asked once,
// then remembered in this browser.
const SECRET_RE = /^[A-Za-z0-9_-]{22}$/;
const NAME_KEY = 'ptyhost.name';

async function redeemInvite(secret: string, room: string): Promise<string> {
  let name = '';
  try { name = localStorage.getItem(NAME_KEY) ?? ''; } catch { /* storage disabled */ }
  if (!name.trim()) {
    name = (window.prompt('Your name, as the others in the session will see it:', '') ?? '').trim();
    if (!name) throw new Error('a name is needed to join');
    try { localStorage.setItem(NAME_KEY, name); } catch { /* storage disabled */ }
  }
  const prefix = location.pathname.replace(/\/v1\/rooms\/[^/]*\/view$/, '');
  const resp = await fetch(location.origin + prefix + '/v1/issuer/redeem', {
    method: 'POST',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ room, secret, name }),
  });
  const body = await resp.json().catch(() => ({}));
  if (!resp.ok || typeof body.token !== 'string') {
    throw new Error(body.message ?? 'the relay refused the link (HTTP ' + resp.status + ')');
  }
  return body.token;
}

// The boot script (boot.ts) ran first and loaded this one; without it the
// page cannot start. It dials nothing for an invite's short link, whose
// fragment is a secret, not a token: the page trades the secret first.
const started = (window as any).ptyhostBoot as Boot | undefined;
// A sealed room's short link carries its key after a dot: #SECRET.KEY.
const [invite, inviteKey] = location.hash.slice(1).split('.', 2);
if (!started) {
  $('notice').textContent = 'cannot start the viewer: its boot script did not run';
} else if (SECRET_RE.test(invite)) {
  redeemInvite(invite, roomOf(roomPath())).then((tok) => main(started, tok, inviteKey), (err: Error) => {
    $('notice').textContent = 'cannot join: ' + err.message;
  });
} else {
  main(started);
}

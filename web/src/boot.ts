// The boot script, loaded before xterm.js and the page's script: it
// starts at once the two things first paint waits on longest, the
// engine's WebAssembly (fetched, compiled while it streams in, and run)
// and the WebSocket dial, so that they proceed while the page's script
// loads and xterm.js sets up. Once both the engine runs and the socket
// is open it subscribes, so the relay's snapshot is on its way before the
// page's script has run. The page (main.ts) takes all of it over; the
// socket's events until then are kept, in order, for it to replay.
import { Boot, SUBPROTOCOL, dial, engineOptions, fragment, mark, roomPath } from './link';
import { localRefusal, roomOf } from './refusal';

declare const Go: new () => { importObject: WebAssembly.Imports; run(i: WebAssembly.Instance): Promise<void> };
declare function ptyhostEngine(o: object): { subscribe(cols: number, rows: number): Uint8Array[] | string } | string;

function boot(): Boot {
  const marks: Record<string, number> = {};
  mark(marks, 'boot');
  // The page preloads the engine (its request leaves with the boot
  // script's, not after it); this fetch takes that response.
  const pre = document.querySelector('link[rel="preload"][as="fetch"]') as HTMLLinkElement | null;
  const engineURL = pre?.href ?? new URL('engine.wasm', (document.currentScript as HTMLScriptElement | null)?.src ?? location.href).href;
  const go = new Go();
  const b: Boot = { engine: Promise.resolve(), ws: null, events: [], marks, eng: null, subscribed: false };
  const params = fragment();
  const tok = params.get('token') ?? '';
  // subscribe sends the dial's subscribe once the engine runs and the
  // socket is open with the protocol's version, if the page has not
  // taken the socket over yet (then it subscribes itself). No viewport:
  // xterm.js has not measured the screen; the page sends it when it
  // takes the pen.
  const subscribe = () => {
    const ws = b.ws;
    if (!b.eng || b.subscribed || !ws || ws.readyState !== WebSocket.OPEN || ws.protocol !== SUBPROTOCOL) return;
    const msgs = (b.eng as { subscribe(cols: number, rows: number): Uint8Array[] | string }).subscribe(0, 0);
    if (typeof msgs === 'string') return;
    for (const m of msgs) ws.send(m);
    b.subscribed = true;
    mark(marks, 'subscribe');
  };
  b.engine = WebAssembly.instantiateStreaming(fetch(engineURL), go.importObject).then(({ instance }) => {
    mark(marks, 'compiled');
    void go.run(instance); // returns once the Go program's main blocks
    mark(marks, 'engine');
    if (b.ws && b.ws.onopen === keep) {
      const made = ptyhostEngine(engineOptions(tok));
      if (typeof made !== 'string') b.eng = made;
      subscribe();
    }
  });
  const keep = (e: Event) => {
    if (e.type === 'open') {
      mark(marks, 'open');
      subscribe();
    }
    b.events.push(e);
  };
  // #nows=1 is the tests' switch that makes every dial fail: none here;
  // nor for a link the page refuses itself (main.ts says why).
  if (tok && params.get('nows') !== '1' && !localRefusal(tok, roomOf(roomPath()), Date.now())) {
    const ws = dial(tok);
    b.ws = ws;
    mark(marks, 'dial');
    ws.onopen = keep;
    ws.onmessage = keep;
    ws.onclose = keep;
  }
  return b;
}

(window as any).ptyhostBoot = boot();

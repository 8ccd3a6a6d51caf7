// The boot script, loaded before xterm.js and the page's script: it
// starts at once the two things first paint waits on longest, the
// engine's WebAssembly and the WebSocket dial, so that they proceed
// while the page's script loads and xterm.js sets up. The page (main.ts)
// takes all of it over; the socket's events until then are kept, in
// order, for it to replay.
//
// The WebAssembly is compiled off the main thread, in a worker running
// this same file (already in the browser's cache). The worker hands the
// module over and runs an engine of its own on it: it makes the dial's
// subscribe, and is given each message the dial receives until the page
// takes the socket over, answering with what the message paints (the
// size and writes of the host's screen, and the engine's widths of the
// characters they hold). So the snapshot is decoded and painted while
// the main thread sets xterm.js up, and the page draws it as soon as
// both are done. Only then does the page run the engine on its main
// thread (Go's start-up takes a while), replays the dial's messages
// into it, drawing none of what the worker drew (the same engine on the
// same messages paints the same), and lets the worker go. V8 compiles a
// module's functions on their first call, into the module the two
// threads share, so the page's engine also finds the worker's work done.
import { Boot, SUBPROTOCOL, dial, engineOptions, fragment, mark, roomPath, type EarlyPaint, type PaintEv } from './link';
import { localRefusal, roomOf } from './refusal';

declare const Go: new () => { importObject: WebAssembly.Imports; run(i: WebAssembly.Instance): Promise<void> };
interface Eng {
  subscribe(cols: number, rows: number): Uint8Array[] | string;
  apply(msg: Uint8Array): PaintEv[] | string;
}
declare function ptyhostEngine(o: object): Eng | string;
declare function ptyhostWidth(codepoint: number): number;

// The page's engine waits at most this long after the module is
// compiled for the first paint before it starts anyway (a room with no
// screen to show yet still has its state to show).
const EARLY_PAINT_WAIT = 1500;
// The page's script waits at most this long for the worker to start.
const APP_WAIT = 250;

// compileWorker is this file run as the worker. Its first message names
// the module and the engine's options (null: no dial to paint); each
// later one carries a message of the dial, in order.
function compileWorker(): void {
  postMessage({ ready: true });
  let eng: Eng | null = null;
  let stopped = false;
  const queue: { i: number; msg: Uint8Array }[] = [];
  const drain = () => {
    while (eng && queue.length > 0) {
      const { i, msg } = queue.shift()!;
      if (stopped) continue;
      const evs = eng.apply(msg);
      if (typeof evs === 'string') {
        stopped = true;
        postMessage({ paint: { i, evs: [], widths: [], stop: true } });
        continue;
      }
      const out: PaintEv[] = [];
      const widths: number[] = [];
      const seen = new Set<number>();
      let stop = false;
      for (const ev of evs) {
        if (ev.kind === 'size') out.push({ kind: 'size', cols: ev.cols, rows: ev.rows, text: ev.text });
        else if (ev.kind === 'write') {
          out.push({ kind: 'write', data: ev.data });
          for (const ch of new TextDecoder().decode(ev.data)) {
            const cp = ch.codePointAt(0)!;
            if (cp >= 0x300 && !seen.has(cp)) {
              seen.add(cp);
              widths.push(cp, ptyhostWidth(cp));
            }
          }
        } else if (ev.kind === 'error' || ev.kind === 'exit') stop = true;
      }
      stopped = stop;
      postMessage({ paint: { i, evs: out, widths, stop } });
    }
  };
  self.onmessage = (e: MessageEvent) => {
    const d = e.data ?? {};
    if (d.msg instanceof Uint8Array) {
      queue.push({ i: d.i, msg: d.msg });
      drain();
      return;
    }
    if (typeof d.url !== 'string') return;
    WebAssembly.compileStreaming(fetch(d.url)).then(async (mod) => {
      postMessage({ mod });
      if (!d.opts) return;
      const go = new Go();
      const inst = await WebAssembly.instantiate(mod, go.importObject);
      void go.run(inst);
      const made = ptyhostEngine(d.opts);
      if (typeof made === 'string') throw new Error(made);
      const sub = made.subscribe(0, 0);
      if (typeof sub === 'string') throw new Error(sub);
      eng = made;
      postMessage({ sub });
      drain();
    }).catch((err) => postMessage({ error: String(err) }));
  };
}

function boot(): Boot {
  const marks: Record<string, number> = {};
  mark(marks, 'boot');
  // The page preloads the engine (its request leaves with the boot
  // script's, not after it); the worker's fetch, or this page's, takes
  // that response from the cache.
  const bootSrc = (document.currentScript as HTMLScriptElement | null)?.src ?? null;
  const pre = document.querySelector('link[rel="preload"][as="fetch"]') as HTMLLinkElement | null;
  const engineURL = pre?.href ?? new URL('engine.wasm', bootSrc ?? location.href).href;
  const go = new Go();
  let release = () => {};
  const b: Boot = {
    engine: Promise.resolve(), ws: null, events: [], marks, eng: null, subscribed: false,
    paints: [], onPaint: null, release: () => release(),
  };
  const params = fragment();
  const tok = params.get('token') ?? '';
  // #nows=1 is the tests' switch that makes every dial fail: none here;
  // nor for a link the page refuses itself (main.ts says why).
  const dialing = !!tok && params.get('nows') !== '1' && !localRefusal(tok, roomOf(roomPath()), Date.now());
  // The page's engine starts once the early paint is drawn (the page
  // calls release), or is not coming: no dial, the dial closed, the
  // worker failed or met an error or exit, or it waited long enough.
  const gate = new Promise<void>((resolve) => { release = resolve; });
  let subMsgs: Uint8Array[] | null = null;
  // subscribe sends the dial's subscribe once it is made (by the worker's
  // engine or the page's) and the socket is open with the protocol's
  // version, if the page has not taken the socket over yet (then it
  // subscribes itself). No viewport: xterm.js has not measured the
  // screen; the page sends it when it takes the pen.
  const subscribe = () => {
    const ws = b.ws;
    if (b.subscribed || !ws || ws.onopen !== keep || ws.readyState !== WebSocket.OPEN || ws.protocol !== SUBPROTOCOL) return;
    if (!subMsgs && b.eng) {
      const msgs = (b.eng as Eng).subscribe(0, 0);
      if (typeof msgs !== 'string') subMsgs = msgs;
    }
    if (!subMsgs) return;
    for (const m of subMsgs) ws.send(m);
    b.subscribed = true;
    mark(marks, 'subscribe');
  };
  // The page's script (xterm.js and main.ts) is preloaded, and run once
  // the worker has started: a worker's start needs this thread for a
  // moment, which the page's script would otherwise hold for as long as
  // it takes to set xterm.js up.
  let appLoaded = false;
  const loadApp = () => {
    if (appLoaded) return;
    appLoaded = true;
    const run = () => {
      const app = document.querySelector('link[rel="preload"][as="script"]') as HTMLLinkElement | null;
      if (!app) return;
      const s = document.createElement('script');
      s.src = app.href;
      s.async = false;
      document.body.appendChild(s);
    };
    if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', run, { once: true });
    else run();
  };
  setTimeout(loadApp, APP_WAIT);
  let worker: Worker | null = null;
  let sent = 0; // the dial's messages given to the worker
  const here = () => WebAssembly.compileStreaming(fetch(engineURL));
  const compiled = new Promise<WebAssembly.Module>((resolve) => {
    let got = false;
    const failed = () => {
      loadApp();
      if (!got) resolve(here());
      got = true;
      worker?.terminate();
      worker = null;
      release();
    };
    if (!bootSrc || typeof Worker !== 'function') { failed(); return; }
    try {
      worker = new Worker(bootSrc, { name: 'ptyhost-engine' });
    } catch {
      failed();
      return;
    }
    worker.onmessage = (e: MessageEvent) => {
      const d = e.data ?? {};
      if (d.ready) {
        loadApp();
      } else if (d.mod instanceof WebAssembly.Module && !got) {
        got = true;
        mark(marks, 'compiled');
        resolve(d.mod);
        setTimeout(release, EARLY_PAINT_WAIT);
      } else if (d.sub) {
        subMsgs = d.sub;
        mark(marks, 'engine');
        subscribe();
      } else if (d.paint) {
        const p = d.paint as EarlyPaint;
        b.paints.push(p);
        b.onPaint?.(p);
        if (p.stop) release();
      } else if (d.error) {
        failed();
      }
    };
    worker.onerror = (e) => {
      e.preventDefault();
      failed();
    };
    worker.postMessage({ url: engineURL, opts: dialing ? engineOptions(tok) : null });
  });
  b.engine = Promise.all([compiled, gate]).then(([mod]) => {
    mark(marks, 'compiled');
    return WebAssembly.instantiate(mod, go.importObject);
  }).then((instance) => {
    void go.run(instance); // returns once the Go program's main blocks
    mark(marks, 'engine');
    mark(marks, 'page-engine');
    // The page takes over: the worker paints no more.
    worker?.terminate();
    worker = null;
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
    } else if (e.type === 'message' && worker) {
      const data = (e as MessageEvent).data;
      if (data instanceof ArrayBuffer) worker.postMessage({ msg: new Uint8Array(data.slice(0)), i: sent++ });
    } else if (e.type === 'close') {
      release();
    }
    b.events.push(e);
  };
  if (dialing) {
    const ws = dial(tok);
    b.ws = ws;
    mark(marks, 'dial');
    ws.onopen = keep;
    ws.onmessage = keep;
    ws.onclose = keep;
  } else {
    release();
  }
  return b;
}

if (typeof document === 'undefined') compileWorker();
else (window as any).ptyhostBoot = boot();

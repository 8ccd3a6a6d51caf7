// The boot script, loaded before xterm.js and the page's script: it
// starts at once the two things first paint waits on longest, the
// engine's WebAssembly (fetched, compiled while it streams in, and run)
// and the WebSocket dial, so that they proceed while the page's script
// loads and xterm.js sets up. The page (main.ts) takes both over; the
// socket's events until then are kept, in order, for it to replay.
import { Boot, dial, fragment, mark, roomPath } from './link';
import { localRefusal, roomOf } from './refusal';

declare const Go: new () => { importObject: WebAssembly.Imports; run(i: WebAssembly.Instance): Promise<void> };

function boot(): Boot {
  const marks: Record<string, number> = {};
  mark(marks, 'boot');
  const me = document.currentScript as HTMLScriptElement | null;
  const engineURL = new URL(me?.dataset.engine ?? 'engine.wasm', me?.src ?? location.href).href;
  const go = new Go();
  const engine = WebAssembly.instantiateStreaming(fetch(engineURL), go.importObject).then(({ instance }) => {
    mark(marks, 'compiled');
    void go.run(instance); // returns once the Go program's main blocks
    mark(marks, 'engine');
  });
  const params = fragment();
  const tok = params.get('token') ?? '';
  const events: Event[] = [];
  let ws: WebSocket | null = null;
  // #nows=1 is the tests' switch that makes every dial fail: none here;
  // nor for a link the page refuses itself (main.ts says why).
  if (tok && params.get('nows') !== '1' && !localRefusal(tok, roomOf(roomPath()), Date.now())) {
    ws = dial(tok);
    mark(marks, 'dial');
    const keep = (e: Event) => {
      if (e.type === 'open') mark(marks, 'open');
      events.push(e);
    };
    ws.onopen = keep;
    ws.onmessage = keep;
    ws.onclose = keep;
  }
  return { engine, ws, events, marks };
}

(window as any).ptyhostBoot = boot();

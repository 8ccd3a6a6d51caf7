// What the boot script and the page both read from the page's address:
// the room's WebSocket URL, the attach token from the fragment, and the
// subprotocols a dial offers (the version, and the token as a bearer.
// subprotocol, since a browser cannot set an Authorization header on a
// WebSocket).
import { claims, roomOf } from './refusal';

export const SUBPROTOCOL = 'interactive-attach-v1';

export function b64url(s: string): string {
  const bytes = new TextEncoder().encode(s);
  let bin = '';
  bytes.forEach((b) => { bin += String.fromCharCode(b); });
  return btoa(bin).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

// roomPath is the page's path without its /view: the room's attach path.
export function roomPath(): string {
  return location.pathname.replace(/\/view$/, '');
}

export function wsURL(): string {
  return (location.protocol === 'https:' ? 'wss://' : 'ws://') + location.host + roomPath();
}

export function fragment(): URLSearchParams {
  return new URLSearchParams(location.hash.slice(1));
}

export function dial(tok: string): WebSocket {
  const sock = new WebSocket(wsURL(), [SUBPROTOCOL, 'bearer.' + b64url(tok)]);
  sock.binaryType = 'arraybuffer';
  return sock;
}

// Boot is what the boot script started, for the page to take over: the
// engine (downloaded, compiled and running once it resolves) and the
// first WebSocket dial with the events it fired before the page took it.
// marks is the page's start-up timeline in ms since navigation (boot,
// dial, open, app when the page's script starts, worker when the boot
// script's worker has its engine running and the subscribe made,
// subscribe, snapshot when the first snapshot is decoded, drawn when
// xterm.js has parsed it, compiled when the page's main thread has the
// module and may run it, engine when the Go program runs there), read by
// the tests and the first-paint benchmark.
export interface Boot {
  engine: Promise<void>;
  ws: WebSocket | null;
  events: Event[];
  marks: Record<string, number>;
  // eng is the engine the boot script made for its dial on the main
  // thread, and subscribed says it sent that dial's subscribe (the
  // worker's engine's, or this one's), the moment both an engine and the
  // socket were ready, without waiting for the page's script and
  // xterm.js: the snapshot is on its way while they load.
  eng: unknown;
  subscribed: boolean;
  // paints are the worker's paints of the dial's messages, in order, for
  // the page to draw before its own engine runs; onPaint, when the page
  // sets it, is called with each as it comes. The page calls release
  // once it has drawn the first (the page's engine starts then).
  paints: EarlyPaint[];
  onPaint: ((p: EarlyPaint) => void) | null;
  release: () => void;
}

// PaintEv is an engine event that paints: the size of the screen (text
// "snapshot" for a snapshot's) or what to write to xterm.js.
export interface PaintEv { kind: string; cols?: number; rows?: number; text?: string; data?: Uint8Array }

// EarlyPaint is what the worker's engine painted of the dial's message
// number i (from 0), with the engine's widths of the characters outside
// Latin it holds (code point, width, ...); stop says the message held an
// error or the session's exit, or could not be read: the page's own
// engine should take over at once.
export interface EarlyPaint { i: number; evs: PaintEv[]; widths: number[]; stop: boolean }

// SCROLLBACK is the lines of scrollback the page keeps: its terminal's,
// and its engine's, which keeps the screen the terminal shows.
export const SCROLLBACK = 5000;

// EngineOptions are ptyhostEngine's options for a leg of tok's; the boot
// script and the page make their engines from the same.
export interface EngineOptions { sessionId: string; connId: string; driver: boolean; maxPendingBytes: number; key: string; scrollback: number }

// engineOptions reads them from the token's claims (the role decides how
// the leg subscribes, the jti names it: the relay verifies the token)
// and the page's address: #maxpaste=N lowers the bytes a paste may leave
// awaiting the relay's ack (never raises them), so a test reaches the
// refusal with a small paste. key is a sealed room's key: a short link's
// (#SECRET.KEY), else the fragment's key=.
export function engineOptions(tok: string, key?: string): EngineOptions {
  const c = claims(tok) ?? {};
  return {
    sessionId: roomOf(roomPath()), connId: c.jti ?? '', driver: c.role === 'driver',
    maxPendingBytes: Number(fragment().get('maxpaste')) || 0,
    key: key ?? fragment().get('key') ?? '', scrollback: SCROLLBACK,
  };
}

// mark records the first time a step of the start-up happened.
export function mark(marks: Record<string, number>, step: string): void {
  if (!(step in marks)) marks[step] = Math.round(performance.now() * 10) / 10;
}

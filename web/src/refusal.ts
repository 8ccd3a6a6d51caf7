// Why a link does not get the page in, in words a person understands.
// A browser cannot read the status of a refused WebSocket upgrade, so the
// page checks what it can itself (a token it can read, its expiry, its
// room, its role) before it dials, and otherwise asks the relay: the
// lane's ticket endpoint verifies the token as a dial does and says why
// it refuses it. Each sentence stays on the page: no redial mends these.

// Claims are the token's payload as the page reads it, for display and
// routing only: the relay verifies the signature.
export interface Claims {
  role?: string; jti?: string; userId?: string; exp?: number; roomId?: string; sessionId?: string; prop?: boolean;
}

// claims reads the token's payload, or null when it cannot be read.
export function claims(tok: string): Claims | null {
  try {
    const part = tok.split('.')[1].replace(/-/g, '+').replace(/_/g, '/');
    const bin = atob(part + '='.repeat((4 - (part.length % 4)) % 4));
    const c = JSON.parse(new TextDecoder().decode(Uint8Array.from(bin, (ch) => ch.charCodeAt(0))));
    return c !== null && typeof c === 'object' && !Array.isArray(c) ? c : null;
  } catch {
    return null;
  }
}

// roomOf is the room a viewer page's path names.
export function roomOf(path: string): string {
  try {
    return decodeURIComponent(path.slice(path.lastIndexOf('/') + 1));
  } catch {
    return '';
  }
}

const ASK = 'Ask whoever shared it for a new link.';

export const DAMAGED = 'This link is damaged: the token at its end cannot be read. Copy the whole link again, or ask for a new one.';
export const FORGED = 'This link is not valid on this relay: its token was refused (altered, forged, or made for another relay). ' + ASK;
export const HOST = 'This link holds a host\'s token, which does not open a viewer. Ask for a watch or drive link.';
export const REVOKED = 'The person sharing this session revoked this link: it opens nothing any more. ' + ASK;
export const REMOVED = 'The person sharing this session removed you from it.';
export const IN_USE = 'This link is already open in another window or tab, and a link serves one viewer at a time. Close the other one, or ask for another link.';
export const USED = 'This link has been used up and does not admit a new connection. ' + ASK;
export const ORIGIN = 'This relay does not take viewers from this page\'s address (its origin is refused). Open the link exactly as it was shared.';

function when(exp: number): string {
  return new Date(exp * 1000).toISOString().slice(0, 16).replace('T', ' ') + ' UTC';
}

export function expired(exp: number): string {
  return `This link has expired (at ${when(exp)}). ${ASK}`;
}

export function otherRoom(tokenRoom: string, room: string): string {
  return `This link is for another session ("${tokenRoom}"), not this page's ("${room}"). Open the link exactly as it was shared.`;
}

function isExpired(c: Claims | null, nowMs: number): boolean {
  return typeof c?.exp === 'number' && c.exp * 1000 <= nowMs;
}

// localRefusal is the sentence for a link the page can tell is refused
// without asking, or '' when it cannot tell.
export function localRefusal(tok: string, room: string, nowMs: number): string {
  const c = claims(tok);
  if (c === null) return DAMAGED;
  if (isExpired(c, nowMs)) return expired(c.exp!);
  if (c.role === 'host') return HOST;
  if (typeof c.roomId === 'string' && c.roomId !== room) return otherRoom(c.roomId, room);
  return '';
}

// ticketRefusal reads the relay's answer to a ticket request (status and
// body): the sentence for a refused link, or '' when the answer refuses
// nothing about the link (200, a busy or restarting relay, a relay
// without the lane).
export function ticketRefusal(status: number, body: string, tok: string, room: string, nowMs: number): string {
  const c = claims(tok);
  const text = body.trim();
  if (status === 401) {
    if (isExpired(c, nowMs)) return expired(c!.exp!);
    if (/already used/.test(text)) return USED;
    if (/live connection/.test(text)) return IN_USE;
    return FORGED;
  }
  if (status === 403) {
    if (/another room/.test(text)) return otherRoom(c?.roomId ?? '?', room);
    if (/origin/.test(text)) return ORIGIN;
    if (/host/.test(text)) return HOST;
    return FORGED;
  }
  return '';
}

// errorRefusal reads an error control the relay sent on an upgraded leg:
// the sentence when it refuses the link, or '' for any other error.
export function errorRefusal(code: string, message: string, tok: string, room: string, nowMs: number): string {
  const c = claims(tok);
  if (code === 'room-mismatch') return otherRoom(c?.roomId ?? '?', room);
  // A sealed room's refusals (no key, an old one) and a frame that failed
  // its integrity check: the message is already the sentence to show.
  if (code === 'sealed' || code === 'integrity') return message;
  if (code !== 'auth') return '';
  if (/live connection/.test(message)) return IN_USE;
  // The relay's words for a revoked invite and a host's kick.
  if (/link was revoked/.test(message)) return REVOKED;
  if (/removed by the host/.test(message)) return REMOVED;
  if (/already used/.test(message)) return USED;
  if (isExpired(c, nowMs)) return expired(c!.exp!);
  return FORGED;
}

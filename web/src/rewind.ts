// Rewind and search: the room's history on the relay (docs/relay.md,
// "History and rewind") shown beside the live session. Moving the
// timeline asks the relay for the screen at a seq (a key frame and the
// frames after it) and draws it in a terminal of its own, on an engine of
// its own, so the live leg's seqs never meet the history's; "Live" puts
// the live terminal back. Search reads the whole history in ranges and
// lists where the text was printed; each result rewinds there. A sealed
// room's history comes sealed: the engine opens every frame here with the
// link's key before it is drawn or searched (ptyhostHistory), so the text
// searched for never leaves the page; a frame that fails to open is
// skipped, and the page says so.
import { Terminal } from '@xterm/xterm';
import { useEngineWidths } from './widths';

interface Ev { kind: string; data?: Uint8Array; cols?: number; rows?: number }
interface ReplayEngine { apply(msg: Uint8Array): Ev[] | string }
interface Point { seq: number; t: number }
interface Index {
  first: number; head: number; keyframes: Point[]; points: Point[]; marks: (Point & { label: string })[];
  epoch?: number; sealed?: string; stopped?: string;
}
interface Found { seq: number; end: number; line: string }
interface Reader {
  frames(files: Uint8Array[], seq?: number, end?: number): { frames: Uint8Array[]; failed: number } | string;
  searcher(query: string): { feed(file: Uint8Array): { found: Found[]; failed: number } | string } | string;
}
declare function ptyhostEngine(o: { sessionId: string; connId: string; driver: boolean; maxPendingBytes: number; scrollback: number }): ReplayEngine | string;
declare function ptyhostHistory(o: { sessionId: string; key: string; epoch: number; sealed: string }): Reader | string;

// unreadable is the line a read of the history that skipped frames shows.
function unreadable(n: number): string {
  return n === 1 ? 'a frame of the history failed its integrity check: it is not shown'
    : `${n} frames of the history failed their integrity check: they are not shown`;
}

// The most results a search lists.
const MAX_RESULTS = 200;

export class Rewind {
  private index: Index | null = null;
  private replay: Terminal | null = null;
  private wanted = 0; // the seq the timeline last asked for
  private busy: Promise<void> = Promise.resolve();
  private reader: Reader | string = 'the history is not open yet';
  showing = false;
  // at says where the screen in view is from ("1:23 (seq 45)"), '' when
  // it is the live one.
  at = '';
  // The frames the last screen or search skipped, having failed to open.
  unreadable = 0;

  constructor(private base: string, private token: string, private sessionId: string,
    private live: Terminal, private opts: Record<string, unknown>, private notice: (s: string) => void,
    private key = '', private onShow: () => void = () => {}) {}

  private async get(path: string): Promise<Response> {
    const resp = await fetch(this.base + path, { headers: { Authorization: 'Bearer ' + this.token }, cache: 'no-store' });
    if (resp.status === 404) throw new Error('this relay keeps no history of the session (it runs without --history-dir)');
    if (resp.status === 410) throw new Error('that part of the session is no longer kept');
    if (!resp.ok) throw new Error(`history: ${resp.status} ${await resp.text()}`);
    return resp;
  }

  // open reads the history's index and sets the timeline to it.
  async open(): Promise<Index> {
    const ix = await (await this.get('/history')).json() as Index;
    this.index = ix;
    this.reader = ptyhostHistory({ sessionId: this.sessionId, key: this.key, epoch: ix.epoch ?? 0, sealed: ix.sealed ?? '' });
    const scrub = document.getElementById('scrub') as HTMLInputElement;
    const first = ix.keyframes.length ? ix.keyframes[0].seq : ix.first;
    scrub.min = String(first);
    scrub.max = String(ix.head);
    if (!this.showing) scrub.value = String(ix.head);
    return ix;
  }

  // timeOf says when seq was published, from the index's points.
  timeOf(seq: number): number {
    const pts = (this.index?.points ?? []).concat(this.index?.keyframes ?? []);
    let best: Point | null = null;
    for (const p of pts) if (p.seq <= seq && (!best || p.seq > best.seq)) best = p;
    return best ? best.t : 0;
  }

  // rewindTo shows the screen at seq (with end, as the Output frame seq
  // had printed its first end bytes: where a search match ends) and
  // resolves to the milliseconds from the request to the screen drawn.
  rewindTo(seq: number, end = -1): Promise<number> {
    // Before the first key frame nothing can be rebuilt: the earliest
    // screen kept is the nearest.
    const first = this.index?.keyframes[0]?.seq;
    if (first !== undefined && seq < first) { seq = first; end = -1; }
    // A cut needs the frame itself after a key frame before it (below):
    // at the first key frame there is none.
    if (first !== undefined && seq === first) end = -1;
    this.wanted = seq;
    const run = this.busy.then(() => this.draw(seq, end));
    this.busy = run.then(() => undefined, () => undefined);
    return run;
  }

  private async draw(seq: number, end: number): Promise<number> {
    if (seq !== this.wanted) return 0; // a later move of the timeline supersedes it
    const t0 = performance.now();
    if (!this.index) await this.open();
    const reader = this.reader;
    if (typeof reader === 'string') throw new Error(reader);
    const file = async (path: string) => new Uint8Array(await (await this.get(path)).arrayBuffer());
    // A key frame at seq shows all that frame seq printed: a cut takes
    // the screen before it, then the frame alone.
    const got = end >= 0
      ? reader.frames(await Promise.all([file('/history/frames?at=' + (seq - 1)), file(`/history/frames?from=${seq}&to=${seq}`)]), seq, end)
      : reader.frames([await file('/history/frames?at=' + seq)]);
    if (typeof got === 'string') throw new Error(got);
    // The frames come opened: the replay's engine needs no key.
    const eng = ptyhostEngine({
      sessionId: this.sessionId, connId: '', driver: false, maxPendingBytes: 0,
      scrollback: Number(this.opts.scrollback) || 0,
    });
    if (typeof eng === 'string') throw new Error(eng);
    const term = this.terminal();
    term.reset();
    for (const f of got.frames) {
      const evs = eng.apply(f);
      if (typeof evs === 'string') throw new Error(evs);
      for (const ev of evs) {
        if (ev.kind === 'write') term.write(ev.data!);
        else if (ev.kind === 'size' && ev.cols! > 0 && ev.rows! > 0 && (ev.cols !== term.cols || ev.rows !== term.rows)) term.resize(ev.cols!, ev.rows!);
      }
    }
    const secs = Math.round(this.timeOf(seq) / 1e6);
    this.at = `${Math.floor(secs / 60)}:${String(secs % 60).padStart(2, '0')} (seq ${seq})`;
    (document.getElementById('scrub-time') as HTMLElement).textContent = 'at ' + this.at;
    this.show(true);
    this.unreadable = got.failed;
    if (got.failed > 0) this.notice(unreadable(got.failed));
    await new Promise<void>((resolve) => term.write('', () => requestAnimationFrame(() => resolve())));
    return performance.now() - t0;
  }

  private terminal(): Terminal {
    if (!this.replay) {
      this.replay = new Terminal({ ...this.opts, disableStdin: true, cols: this.live.cols, rows: this.live.rows });
      this.replay.open(document.getElementById('replay') as HTMLElement);
      useEngineWidths(this.replay);
    }
    return this.replay;
  }

  // show puts the history's terminal (true) or the live one in view, and
  // has the status say which.
  show(past: boolean): void {
    this.showing = past;
    if (!past) this.at = '';
    (document.getElementById('replay') as HTMLElement).hidden = !past;
    (document.getElementById('term') as HTMLElement).hidden = past;
    (document.getElementById('live-button') as HTMLElement).hidden = !past;
    if (!past) {
      (document.getElementById('scrub-time') as HTMLElement).textContent = 'live';
      this.live.focus();
    }
    this.onShow();
  }

  // search reads the whole history, range by range, and lists where
  // query was printed (newest first); each result rewinds there.
  async search(query: string): Promise<Found[]> {
    const ix = await this.open();
    if (typeof this.reader === 'string') throw new Error(this.reader);
    const s = this.reader.searcher(query);
    if (typeof s === 'string') throw new Error(s);
    const found: Found[] = [];
    let failed = 0;
    for (let next = ix.first; next > 0 && next <= ix.head;) {
      const resp = await this.get(`/history/frames?from=${next}&to=${ix.head}`);
      const got = s.feed(new Uint8Array(await resp.arrayBuffer()));
      if (typeof got === 'string') throw new Error(got);
      found.push(...got.found);
      failed = got.failed;
      const n = Number(resp.headers.get('Ptyhost-Next-Seq'));
      if (!(n > next)) break;
      next = n;
    }
    const list = document.getElementById('search-results') as HTMLElement;
    list.replaceChildren();
    for (const m of found.slice(-MAX_RESULTS).reverse()) {
      const li = document.createElement('li');
      li.textContent = m.line;
      li.title = `seq ${m.seq}: show the session there`;
      li.addEventListener('click', () => { void this.rewindTo(m.seq, m.end).catch((e) => this.notice(String(e))); });
      list.append(li);
    }
    this.unreadable = failed;
    const said = found.length ? `${found.length} found` : `"${query}" is nowhere in the session`;
    this.notice(failed > 0 ? `${said}; ${unreadable(failed)}` : said);
    return found;
  }

  // The tests' view of the history's terminal.
  screen(): string {
    const t = this.replay;
    if (!t) return '';
    const buf = t.buffer.active;
    const rows: string[] = [];
    for (let y = 0; y < t.rows; y++) rows.push(buf.getLine(buf.viewportY + y)?.translateToString(true) ?? '');
    return rows.join('\n');
  }
}

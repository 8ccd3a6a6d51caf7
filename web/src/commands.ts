// The session's commands, from its command marks (docs/protocol.md §4,
// "Command marks", read for the page by the engine's WebAssembly): each
// command is a block in the terminal's gutter coloured by its exit status
// and an entry in the commands list; the page jumps to the previous or
// next command and copies one command's output.
import type { IDecoration, IMarker, Terminal } from '@xterm/xterm';

// The most commands the page keeps: older ones leave the list (their
// lines may have left the scrollback long before).
const MAX_COMMANDS = 500;

// The most rows one block's gutter decoration spans.
const MAX_BLOCK_ROWS = 1000;

export interface MarkEvent { mark?: string; command?: string; status?: number }

interface Command {
  n: number;
  text: string;
  start: IMarker; // the line its output starts on
  startCol: number; // and the column (a prompt may share the line)
  end?: IMarker; // the line the shell was on when it ended
  endCol: number;
  status?: number; // undefined while it runs; -1 ended without a status
  decoration?: IDecoration;
  item: HTMLElement;
}

export class Commands {
  private cmds: Command[] = [];
  private n = 0;
  private current = -1; // the command last jumped to
  // errors records what failed while filing a mark (read by the tests).
  readonly errors: string[] = [];

  constructor(private term: Terminal, private list: HTMLElement, private count: HTMLElement) {}

  // mark takes a marker event. The marker follows the output that carried
  // its sequence, and xterm parses writes later, so its line is read once
  // what was written before it is parsed.
  mark(ev: MarkEvent): void {
    if (ev.mark !== 'command' && ev.mark !== 'exit') return;
    this.term.write(new Uint8Array(0), () => {
      // An exception here would stop xterm's write queue: the page would
      // show nothing more. A failed decoration costs only itself.
      try {
        if (ev.mark === 'command') this.begin(ev.command ?? '');
        else this.finish(ev.status ?? -1);
      } catch (e) {
        this.errors.push(String(e));
      }
    });
  }

  private begin(text: string): void {
    const start = this.term.registerMarker(0);
    if (!start) return;
    const item = document.createElement('li');
    const cmd: Command = { n: ++this.n, text, start, startCol: this.term.buffer.active.cursorX, endCol: 0, item };
    item.className = 'cmd running';
    const label = document.createElement('span');
    label.className = 'cmd-text';
    label.textContent = text || '(command line not given)';
    label.title = 'jump to this command';
    label.addEventListener('click', () => this.jumpTo(cmd));
    const copy = document.createElement('button');
    copy.type = 'button';
    copy.textContent = 'copy';
    copy.title = 'copy this command\'s output';
    copy.addEventListener('click', () => { void navigator.clipboard?.writeText(this.output(cmd)); });
    const st = document.createElement('span');
    st.className = 'cmd-status';
    st.textContent = '…';
    item.append(st, label, copy);
    this.list.append(item);
    this.cmds.push(cmd);
    if (this.cmds.length > MAX_COMMANDS) this.drop(this.cmds.shift()!);
    start.onDispose(() => item.classList.add('gone'));
    this.showCount();
  }

  private finish(status: number): void {
    const cmd = this.cmds[this.cmds.length - 1];
    if (!cmd || cmd.status !== undefined) return; // an end with no command running
    cmd.status = status;
    cmd.end = this.term.registerMarker(0);
    cmd.endCol = this.term.buffer.active.cursorX;
    const ok = status === 0;
    cmd.item.className = 'cmd ' + (status < 0 ? 'unknown' : ok ? 'ok' : 'failed');
    (cmd.item.querySelector('.cmd-status') as HTMLElement).textContent = status < 0 ? '?' : ok ? '✓' : `✗ ${status}`;
    const rows = cmd.end ? cmd.end.line - cmd.start.line + (cmd.endCol > 0 ? 1 : 0) : 1;
    const d = this.term.registerDecoration({
      marker: cmd.start, x: 0, width: 1, height: Math.max(1, Math.min(rows, MAX_BLOCK_ROWS)), layer: 'top',
    });
    if (d) {
      cmd.decoration = d;
      const cls = ok ? 'ok' : status < 0 ? 'unknown' : 'failed';
      d.onRender((el) => { el.classList.add('cmd-block', cls); });
    }
  }

  private drop(cmd: Command): void {
    cmd.decoration?.dispose();
    cmd.start.dispose();
    cmd.end?.dispose();
    cmd.item.remove();
  }

  private showCount(): void {
    this.count.textContent = String(this.cmds.length);
  }

  private jumpTo(cmd: Command): void {
    if (cmd.start.isDisposed) return;
    this.current = this.cmds.indexOf(cmd);
    this.term.scrollToLine(cmd.start.line);
    for (const c of this.cmds) c.item.classList.toggle('current', c === cmd);
  }

  // jump scrolls to the previous (-1) or next (+1) command from the one
  // last jumped to, or from the newest.
  jump(dir: -1 | 1): void {
    const live = this.cmds.filter((c) => !c.start.isDisposed);
    if (live.length === 0) return;
    let i = this.current < 0 || this.current >= this.cmds.length ? live.length : live.indexOf(this.cmds[this.current]);
    i = Math.max(0, Math.min(live.length - 1, i + dir));
    this.jumpTo(live[i]);
  }

  // output returns a command's output as text: its lines from where it
  // started to where it ended (to the cursor now if it still runs),
  // trailing blanks trimmed.
  output(cmd: Command): string {
    const buf = this.term.buffer.active;
    if (cmd.start.isDisposed) return '';
    const last = cmd.end && !cmd.end.isDisposed ? cmd.end.line - (cmd.endCol > 0 ? 0 : 1) : buf.baseY + buf.cursorY;
    const lines: string[] = [];
    for (let y = cmd.start.line; y <= last; y++) {
      const line = buf.getLine(y);
      if (!line) break;
      const text = line.translateToString(true, y === cmd.start.line ? cmd.startCol : 0);
      if (line.isWrapped && lines.length > 0) lines[lines.length - 1] += text;
      else lines.push(text);
    }
    return lines.join('\n');
  }

  // The tests' view: each command's text, status and output.
  snapshot(): { text: string; status: number | null; output: string; line: number }[] {
    return this.cmds.map((c) => ({
      text: c.text, status: c.status === undefined ? null : c.status, output: this.output(c), line: c.start.line,
    }));
  }
}

// Input proposals (docs/protocol.md §6, "Input proposals"): input an agent
// (or anyone who needs approval) wants typed waits in this panel until the
// pen holder approves, edits or rejects it. Everyone sees what waits; only
// the holder's buttons are live, and the relay passes on only the holder's
// decisions. The text is shown with its control keys made visible (by the
// engine, in Go) and is never written to the terminal here: the host
// writes what was approved, and the page sees it echoed like any input.

export interface ProposalEv {
  id: string; state: string; input: string; visible: string; from: string; by: string; reason: string; expiresAt: number;
}

// decide sends a decision (the engine's frame, through the page's send);
// fromVisible turns an edited line back into input.
export interface Decider {
  decide(id: string, verdict: 'approve' | 'edit' | 'reject', text: string, reason: string): string | null;
  fromVisible(s: string): string;
}

interface Row { p: ProposalEv; el: HTMLElement }

export class Proposals {
  private rows = new Map<string, Row>();
  private holding = false;
  private timer = 0;
  // outcomes keeps the last outcomes, for the tests and the notice line.
  readonly outcomes: ProposalEv[] = [];

  constructor(private panel: HTMLElement, private list: HTMLElement, private decider: Decider, private notice: (s: string) => void) {}

  // update takes a proposal event: a pending one is shown (or refreshed),
  // an outcome removes it and says what became of it.
  update(p: ProposalEv): void {
    const row = this.rows.get(p.id);
    if (p.state !== 'pending') {
      if (row) {
        row.el.remove();
        this.rows.delete(p.id);
      }
      if (p.state !== 'withdrawn' || row) {
        this.outcomes.push(p);
        if (this.outcomes.length > 50) this.outcomes.shift();
      }
      if (row) this.notice(outcomeText(p));
      this.refresh();
      return;
    }
    if (row) {
      row.p = p;
      return;
    }
    const el = this.render(p);
    this.rows.set(p.id, { p, el });
    this.list.append(el);
    this.refresh();
  }

  // setHolding enables the buttons when this page holds the pen.
  setHolding(on: boolean): void {
    this.holding = on;
    this.refresh();
  }

  // pending lists the ids waiting, oldest first (for the tests).
  pending(): string[] {
    return [...this.rows.keys()];
  }

  private render(p: ProposalEv): HTMLElement {
    const li = document.createElement('li');
    li.className = 'proposal';
    li.dataset.id = p.id;
    const who = document.createElement('div');
    who.className = 'who';
    who.textContent = `${p.from || 'someone'} proposes:`;
    const text = document.createElement('code');
    text.className = 'text';
    text.textContent = p.visible;
    const left = document.createElement('span');
    left.className = 'expires';
    const editor = document.createElement('input');
    editor.className = 'editor';
    editor.type = 'text';
    editor.hidden = true;
    editor.setAttribute('aria-label', 'the input to type instead (⏎ is Enter)');
    const reason = document.createElement('input');
    reason.className = 'reason';
    reason.type = 'text';
    reason.placeholder = 'reason (optional)';
    reason.maxLength = 200;
    reason.hidden = true;
    const buttons = document.createElement('div');
    buttons.className = 'buttons';
    const approve = button('approve', 'Approve', () => this.decide(p.id, 'approve', '', ''));
    const edit = button('edit', 'Edit', () => {
      if (editor.hidden) {
        editor.value = this.rows.get(p.id)?.p.visible ?? p.visible;
        editor.hidden = false;
        edit.textContent = 'Send edited';
        editor.focus();
        return;
      }
      const input = this.decider.fromVisible(editor.value);
      if (input === '') {
        this.notice('the edited input is empty: reject instead');
        return;
      }
      this.decide(p.id, 'edit', input, '');
    });
    const reject = button('reject', 'Reject', () => {
      if (reason.hidden) {
        reason.hidden = false;
        reject.textContent = 'Reject now';
        reason.focus();
        return;
      }
      this.decide(p.id, 'reject', '', reason.value.trim());
    });
    editor.addEventListener('keydown', (e) => { if (e.key === 'Enter') edit.click(); });
    reason.addEventListener('keydown', (e) => { if (e.key === 'Enter') reject.click(); });
    buttons.append(approve, edit, reject, left);
    li.append(who, text, editor, reason, buttons);
    return li;
  }

  private decide(id: string, verdict: 'approve' | 'edit' | 'reject', text: string, reason: string): void {
    if (!this.holding) {
      this.notice('take the pen to decide proposals');
      return;
    }
    const err = this.decider.decide(id, verdict, text, reason);
    if (err) this.notice('not sent: ' + err);
  }

  // refresh shows the panel while something waits, enables the buttons
  // for the holder, and counts down the time each proposal has left.
  private refresh(): void {
    this.panel.hidden = this.rows.size === 0;
    const now = Date.now();
    for (const { p, el } of this.rows.values()) {
      for (const b of el.querySelectorAll('button')) {
        (b as HTMLButtonElement).disabled = !this.holding;
        b.title = this.holding ? '' : 'take the pen to decide';
      }
      const left = el.querySelector('.expires') as HTMLElement;
      const s = p.expiresAt > 0 ? Math.max(0, Math.round((p.expiresAt - now) / 1000)) : -1;
      left.textContent = s < 0 ? '' : `${Math.floor(s / 60)}:${String(s % 60).padStart(2, '0')} left`;
    }
    clearInterval(this.timer);
    if (this.rows.size > 0) this.timer = window.setInterval(() => this.refresh(), 1000);
  }
}

function button(cls: string, label: string, onClick: () => void): HTMLButtonElement {
  const b = document.createElement('button');
  b.type = 'button';
  b.className = cls;
  b.textContent = label;
  b.addEventListener('click', onClick);
  return b;
}

// outcomeText says what became of a proposal, in the notice line.
export function outcomeText(p: ProposalEv): string {
  const what = `${p.from || 'someone'}'s proposal`;
  switch (p.state) {
    case 'approved': return `${what} was approved${p.by ? ' by ' + p.by : ''}`;
    case 'edited': return `${what} was edited${p.by ? ' by ' + p.by : ''} and typed`;
    case 'rejected': return `${what} was rejected${p.by ? ' by ' + p.by : ''}${p.reason ? ': ' + p.reason : ''}`;
    case 'expired': return `${what} expired: nobody decided in time`;
    default: return `${what} was withdrawn`;
  }
}

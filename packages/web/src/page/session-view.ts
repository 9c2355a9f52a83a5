import { MAX_PAYLOAD_SIZE } from '@clippy/protocol';
import { DiffPanel } from './diff-panel.js';
import { clock, duration, el, usage, type TurnUsage } from './format.js';
import type { Rpc } from './rpc.js';
import { AnswerPanel } from './answer-panel.js';
import { StatusLine } from './status-line.js';
import { sessionRef, type SessionRow, type Store } from './store.js';
import { TerminalPane } from './terminal-pane.js';

interface TurnMeta {
  turn_id: string;
  session: string;
  seq: number;
  timestamp: number;
  duration_ms: number;
  prompt: string;
  interrupted: boolean;
  truncated: boolean;
  byte_length: number;
  /** The agent's own record of the turn (its channel): tokens, cost, model. */
  agent?: TurnUsage;
}

/** Turns listed in the timeline (newest first); older ones stay a `clippy turns` away. */
const TIMELINE_LIMIT = 200;
/** Longest relay-buffer label a daemon takes (`put_buffer`'s `label`). */
const MAX_LABEL_CHARS = 64;

/**
 * One session: its terminal (xterm.js, attached as a viewer: shown at the session's size)
 * beside its turn timeline; a blocked agent's question with one-tap answers above; a turn opens
 * to its text with a copy button; actions: fit the session to this window, relay a turn to
 * another session, send text, kill, and remove once it has exited.
 */
export class SessionView {
  private pane: TerminalPane | null = null;
  private readonly cleanups: (() => void)[] = [];
  private selected: TurnMeta | null = null;
  private readonly timeline = el('ol', 'timeline');
  private readonly turnText = el('pre', 'turn-text');
  private readonly turnTitle = el('div', 'turn-title', 'latest turn');
  private readonly relayTarget = el('select', 'relay-target');
  private readonly status = new StatusLine();
  private readonly stateBadge = el('span', 'state');
  /** Says when the session has ended or was removed (the view stays, for its turns). */
  private readonly notice = el('p', 'session-notice');
  private readonly killButton = el('button', 'kill danger', 'Kill');
  private readonly removeButton = el('button', 'remove danger', 'Remove');
  private readonly sendButton = el('button', '', 'Send');
  /** The session's changes in its worktree (a session started with `--worktree` only). */
  private diff: DiffPanel | null = null;
  private readonly copyButton = el('button', 'copy', 'Copy');
  private readonly relayButton = el('button', 'relay', 'Relay to');
  private readonly fitButton = el('button', 'fit', 'Fit to window');
  private readonly zoomButton = el('button', 'zoom', '100 %');
  private answer: AnswerPanel | null = null;
  private turnCount = 0;
  private disposed = false;

  constructor(
    private readonly rpc: Rpc,
    private readonly store: Store,
    private readonly row: SessionRow,
    readonly root: HTMLElement,
    private readonly close: () => void,
  ) {}

  async show(): Promise<void> {
    const { row } = this;
    this.root.replaceChildren();
    this.root.dataset.session = row.session;
    this.root.dataset.name = row.name;
    if (row.host !== null) this.root.dataset.host = row.host;
    else delete this.root.dataset.host;

    const back = el('button', 'back', '← all sessions');
    back.addEventListener('click', () => this.close());
    const kill = this.killButton;
    kill.addEventListener('click', () => {
      if (confirm(`Kill session ${row.name}?`))
        void this.act(() => this.rpc.request('kill', { session: row.session }), 'killed');
    });
    const remove = this.removeButton;
    remove.title = 'Forget this exited session and its turns (clippy rm)';
    remove.addEventListener('click', () => {
      if (confirm(`Remove session ${row.name} and its turns?`))
        void this.act(() => this.rpc.request('remove', { session: row.session }), 'removed');
    });
    const fit = this.fitButton;
    fit.title =
      'Resize the session to this window (the other clients see it at this size until this page leaves)';
    fit.addEventListener('click', () => {
      const pane = this.pane;
      if (!pane) return;
      void this.act(async () => {
        const size = await pane.fitSession();
        this.say(`fitted to ${size.cols}×${size.rows}`);
      }, '');
    });
    const zoom = this.zoomButton;
    zoom.title = 'Show the terminal at 100 % and pan it, or scaled to fit';
    const showZoom = (z: 'fit' | 'actual') => {
      zoom.textContent = z === 'fit' ? '100 %' : 'Scale to fit';
      zoom.setAttribute('aria-pressed', String(z === 'actual'));
    };
    zoom.addEventListener('click', () => {
      const pane = this.pane;
      if (!pane) return;
      pane.setZoom(pane.zoom === 'fit' ? 'actual' : 'fit');
      showZoom(pane.zoom);
    });
    const head = el('header', 'session-head');
    const title = el('div', 'title');
    title.append(back, el('h2', '', sessionRef(row)), this.stateBadge);
    const tools = el('div', 'tools');
    tools.append(...this.diffButton(), fit, zoom, kill, remove);
    head.append(title, el('span', 'command', [row.command, ...row.args].join(' ')), tools);

    const termBox = el('div', 'term-box');
    const side = el('aside', 'side');

    const copy = this.copyButton;
    copy.addEventListener('click', () => void this.copyTurn());
    const relayButton = this.relayButton;
    relayButton.addEventListener('click', () => void this.relay());
    const relayRow = el('div', 'actions');
    relayRow.append(copy, relayButton, this.relayTarget);

    const sendForm = el('form', 'send');
    const sendText = el('textarea', 'send-text');
    sendText.rows = 2;
    sendText.placeholder = 'Text to send to this session';
    const enter = el('input');
    enter.type = 'checkbox';
    enter.checked = true;
    const enterLabel = el('label', '', ' press Enter');
    enterLabel.prepend(enter);
    const sendButton = this.sendButton;
    sendButton.type = 'submit';
    sendForm.append(sendText, enterLabel, sendButton);
    sendForm.addEventListener('submit', (e) => {
      e.preventDefault();
      const text = sendText.value;
      if (!text) return;
      // Measured before packing: packing many MiB into MessagePack takes the page seconds.
      const bytes = new TextEncoder().encode(text).length;
      if (bytes > MAX_PAYLOAD_SIZE) {
        const mib = (n: number) => (n / 1024 / 1024).toFixed(1);
        this.say(
          `not sent: the text is ${mib(bytes)} MiB, a message may hold at most ${MAX_PAYLOAD_SIZE / 1024 / 1024} MiB`,
          true,
        );
        return;
      }
      void this.act(async () => {
        await this.rpc.request('send', {
          session: row.session,
          text,
          enter: enter.checked,
          force: true,
        });
        sendText.value = '';
      }, 'sent');
    });

    side.append(
      el('h3', '', 'Turns'),
      this.timeline,
      this.turnTitle,
      this.turnText,
      relayRow,
      el('h3', '', 'Send'),
      sendForm,
      this.status.root,
    );
    const body = el('div', 'session-body');
    body.append(termBox, side);
    this.notice.hidden = true;
    this.answer = new AnswerPanel(this.rpc, row.session);
    this.root.append(head, this.notice, this.answer.root, body);

    let frame = 0;
    this.cleanups.push(
      // Pushes come in bursts (hundreds a second with agents printing): one refresh a frame.
      this.store.onChange(() => {
        frame ||= requestAnimationFrame(() => {
          frame = 0;
          this.refreshHeader();
        });
      }),
      () => cancelAnimationFrame(frame),
      this.rpc.on('turn_completed', (push) => {
        if (push.session === row.session) this.addTurn(push.turn as TurnMeta, true);
      }),
    );
    this.refreshHeader();
    this.pane = new TerminalPane(this.rpc, row.session, termBox, () => this.refreshHeader());
    this.pane.onZoom = showZoom;
    const { exited } = await this.pane.attach();
    if (this.disposed) return;
    const { turns } = await this.rpc.request<{ turns: TurnMeta[] }>('list_turns', {
      session: row.session,
      limit: TIMELINE_LIMIT,
    });
    if (this.disposed) return;
    for (const turn of [...turns].reverse()) this.addTurn(turn, false);
    if (turns[0]) void this.select(turns[0]);
    this.refreshHeader();
    // Keys typed go to the session at once on a desktop; a phone's keyboard waits for a tap.
    if (!exited && !matchMedia('(pointer: coarse)').matches) this.pane.focus();
    this.root.dataset.ready = 'true';
  }

  /** "Diff" for a session in a worktree of its own: opens its changes, files then hunks. */
  private diffButton(): HTMLElement[] {
    if (!this.row.worktree) return [];
    const button = el('button', 'diff', 'Diff');
    button.title = `Changes on ${this.row.worktree.branch} against its base`;
    button.addEventListener('click', () => {
      this.diff ??= new DiffPanel(this.rpc, this.row.session, this.row.name);
      void this.diff.open(this.root);
    });
    return [button];
  }

  private refreshHeader(): void {
    if (this.disposed) return;
    const current = this.store.sessions.get(this.row.key);
    const state = current?.state ?? 'removed';
    this.stateBadge.textContent = state;
    this.root.dataset.state = state;
    const ended = state === 'exited' || state === 'removed';
    this.killButton.disabled = ended;
    this.killButton.hidden = state === 'exited';
    this.removeButton.hidden = state !== 'exited';
    this.sendButton.disabled = ended;
    this.fitButton.disabled = ended;
    this.answer?.update(current);
    this.notice.hidden = !ended;
    if (!current) {
      this.notice.textContent = `Session ${this.row.name} was removed: it cannot be typed into or relayed from any more.`;
    } else if (state === 'exited') {
      const how =
        current.exit_signal != null
          ? `killed by ${current.exit_signal}`
          : current.exit_code != null
            ? `exit code ${current.exit_code}`
            : 'ended';
      this.notice.textContent = `Session ${current.name} has exited (${how}). The terminal keeps its last screen; its turns can still be read, copied and relayed; Remove forgets it.`;
    }
    const chosen = this.relayTarget.value;
    // Any live session, on any machine the page reaches (another's through its daemon).
    const targets = [...this.store.sessions.values()].filter(
      (s) => s.key !== this.row.key && s.state !== 'exited',
    );
    const names = targets.map(sessionRef).join('\n');
    if (this.relayTarget.dataset.names !== names) {
      this.relayTarget.dataset.names = names;
      this.relayTarget.replaceChildren(
        ...targets.map((t) => {
          const option = el('option', '', sessionRef(t));
          option.value = t.key;
          return option;
        }),
      );
      if (targets.some((t) => t.key === chosen)) this.relayTarget.value = chosen;
    }
    // Nothing to copy or relay without a turn; nowhere to relay without another live session.
    const noTurn = this.turnCount === 0 || state === 'removed';
    this.copyButton.disabled = noTurn;
    this.relayButton.disabled = noTurn || targets.length === 0;
    this.relayTarget.disabled = targets.length === 0;
    this.copyButton.title = noTurn ? 'no turn yet' : 'Copy the selected turn’s text';
    this.relayButton.title = noTurn
      ? 'no turn yet'
      : targets.length === 0
        ? 'no other live session'
        : 'Send the selected turn to the chosen session';
  }

  private addTurn(turn: TurnMeta, isNew: boolean): void {
    const item = el('li', 'turn');
    item.dataset.turn = turn.turn_id;
    const flags = [turn.interrupted ? 'interrupted' : '', turn.truncated ? 'truncated' : '']
      .filter(Boolean)
      .join(' ');
    item.append(
      el('span', 'seq', `#${turn.seq}`),
      el('time', '', clock(turn.timestamp)),
      el('span', 'dur', duration(turn.duration_ms)),
      el('span', 'prompt', turn.prompt || '(no prompt)'),
      el('span', 'flags', flags),
    );
    const used = usage(turn.agent);
    item.title = used ? `${turn.prompt}\n${used}` : turn.prompt;
    item.addEventListener('click', () => void this.select(turn));
    this.timeline.prepend(item);
    if (this.turnCount++ === 0) this.refreshHeader();
    // A view left open on a busy agent for hours keeps the newest turns only.
    while (this.timeline.childElementCount > TIMELINE_LIMIT)
      this.timeline.lastElementChild!.remove();
    if (isNew && (!this.selected || this.selected.seq === turn.seq - 1)) void this.select(turn);
  }

  private async select(turn: TurnMeta): Promise<void> {
    this.selected = turn;
    for (const item of this.timeline.querySelectorAll('li.selected'))
      item.classList.remove('selected');
    this.timeline
      .querySelector(`li[data-turn="${CSS.escape(turn.turn_id)}"]`)
      ?.classList.add('selected');
    this.turnTitle.textContent = [
      `turn #${turn.seq}`,
      clock(turn.timestamp),
      duration(turn.duration_ms),
      usage(turn.agent),
    ]
      .filter(Boolean)
      .join(' · ');
    try {
      const reply = await this.rpc.request<{ turn: { text: string } }>('get_turn', {
        turn_id: turn.turn_id,
      });
      if (this.selected === turn) this.turnText.textContent = reply.turn.text;
    } catch (err) {
      this.turnText.textContent = `(${(err as Error).message})`;
    }
  }

  private async copyTurn(): Promise<void> {
    const text = this.turnText.textContent ?? '';
    try {
      await navigator.clipboard.writeText(text);
      this.say('copied');
    } catch {
      // No clipboard permission: select the text so Ctrl-C copies it.
      const range = document.createRange();
      range.selectNodeContents(this.turnText);
      getSelection()?.removeAllRanges();
      getSelection()?.addRange(range);
      this.say('selected: press Ctrl-C to copy');
    }
  }

  private async relay(): Promise<void> {
    const to = this.store.sessions.get(this.relayTarget.value);
    if (!to) return this.say('no other live session to relay to');
    const from = this.selected?.turn_id ?? this.row.session;
    await this.act(
      () =>
        to.host === this.row.host
          ? this.rpc.request('relay', { from, to: to.session, enter: true })
          : this.relayAcross(to),
      `relayed to ${sessionRef(to)}`,
    );
  }

  /**
   * A relay between two machines (`clippy relay build:a b` does the same): the turn is read
   * from its daemon and handed to the target's, whose relay buffer pastes it as any relay (idle
   * wait, bracketed paste, Enter, confirmation).
   */
  private async relayAcross(to: SessionRow): Promise<void> {
    const picked = this.selected;
    const { turn } = await this.rpc.request<{
      turn: { turn_id: string; text: string; content: Uint8Array };
    }>('get_turn', picked ? { turn_id: picked.turn_id } : { session: this.row.session });
    const label = `${this.row.host ?? 'local'}:${turn.turn_id}`.slice(0, MAX_LABEL_CHARS);
    await to.rpc.request('put_buffer', { text: turn.text, content: turn.content, label });
    await to.rpc.request('paste', { session: to.session, enter: true });
  }

  private async act(fn: () => Promise<unknown>, done: string): Promise<void> {
    try {
      await fn();
      this.say(done);
    } catch (err) {
      this.say(`failed: ${(err as Error).message}`, true);
    }
  }

  private say(text: string, error = false): void {
    if (text) this.status.say(text, error);
  }

  dispose(): void {
    this.disposed = true;
    for (const cleanup of this.cleanups) cleanup();
    this.cleanups.length = 0;
    this.pane?.dispose();
    this.pane = null;
    this.diff?.dispose();
    this.diff = null;
    this.answer?.dispose();
    this.answer = null;
    this.status.dispose();
    this.root.replaceChildren();
  }
}

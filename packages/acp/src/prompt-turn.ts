import type { AgentContext, StopReason } from '@agentclientprotocol/sdk';
import type { Menu, SessionState, Turn } from '@clippy/protocol';
import { AnswerStream, type AnswerSource } from './answer-stream.js';
import { acpError, agentExited } from './errors.js';
import type { DaemonLink, SessionPush } from './daemon-link.js';
import { askEditor, settleToolCall, questionToolCall } from './permission.js';

/**
 * How long `send` may take: it waits for the agent to be idle (the daemon gives up after 15 s
 * with `target_busy`), types, presses Enter and confirms the screen reacted.
 */
export const SEND_TIMEOUT_MS = 60_000;

/**
 * After `session/cancel`, how long the agent gets to stop before the prompt answers `cancelled`
 * anyway: agents stop within a second of Esc or Ctrl-C; one that does not must not hold the
 * editor's prompt (its turn goes on in the daemon, and completes there).
 */
export const CANCEL_GRACE_MS = 10_000;

/**
 * How long a session that has not shown its first prompt yet (an agent starting: loading its
 * configuration, connecting its tools) may take before a prompt gives up on it.
 */
export const STARTUP_TIMEOUT_MS = 60_000;

/** Newest turns read to find the one a prompt produced (others may complete meanwhile). */
const TURNS_LOOKED_AT = 20;

/** A question of the agent's being asked in the editor. */
interface Question {
  abort: AbortController;
  toolCallId: string;
  title: string;
  /** Its tool call was marked done. */
  settled: boolean;
}

/** The clippy session an ACP session runs in. */
export interface ClippySession {
  id: string;
  name: string;
}

/** `prompt` as the detector followed it, without whitespace (wraps, CRs and indents differ). */
const compact = (s: string): string => s.replace(/\s+/gu, '');

/**
 * One `session/prompt`: the text is typed into the agent the way `clippy ask` does it (bracketed
 * paste where the agent enabled it, Enter as its own write, confirmed), the answer streams as
 * `agent_message_chunk` updates while the turn grows, a question the agent asks goes to the
 * editor as `session/request_permission`, and the prompt ends with the turn: `end_turn`, or
 * `cancelled` after `cancel()` (which interrupts the agent as Esc or Ctrl-C would).
 *
 * The turn that answers is the first completed after the text was sent whose input is the text:
 * a person typing in an attached terminal, or another ACP client, makes turns of their own.
 */
export class PromptTurn {
  private readonly stream = new AnswerStream();
  private after = 0;
  private sendIssued = false;
  private sendDone = false;
  private sawBusy = false;
  private state: SessionState | null = null;
  private cancelled = false;
  private finished = false;
  private questions = 0;
  private question: Question | null = null;
  private chain: Promise<void> = Promise.resolve();
  private graceTimer: NodeJS.Timeout | null = null;
  /** Waiting for the session's next state change (before the text is sent). */
  private stateWaiters: (() => void)[] = [];
  private resolveDone!: (reason: StopReason) => void;
  private rejectDone!: (err: unknown) => void;
  private readonly done = new Promise<StopReason>((resolve, reject) => {
    this.resolveDone = resolve;
    this.rejectDone = reject;
  });

  constructor(
    private readonly link: DaemonLink,
    private readonly session: ClippySession,
    private readonly acpSessionId: string,
    private readonly client: AgentContext,
    private readonly text: string,
    /** Where the growing text comes from (default: the daemon's `turn_progress` pushes). */
    private readonly source?: AnswerSource,
  ) {}

  private get daemon() {
    return this.link.daemon;
  }

  async run(): Promise<StopReason> {
    const off = this.link.listen(this.session.id, (push) => this.enqueue(() => this.onPush(push)));
    const offSource = this.source?.onText((text) => this.enqueue(() => this.onText(text)));
    try {
      await this.untilReady();
      if (this.finished) return await this.done;
      if (this.cancelled) {
        this.finish();
        return 'cancelled';
      }
      const { turns } = await this.daemon.request('list_turns', {
        session: this.session.id,
        limit: 1,
      });
      this.after = turns[0]?.seq ?? 0;
      this.sendIssued = true;
      const sent = await this.daemon.request(
        'send',
        { session: this.session.id, text: this.text, enter: true, complete: true },
        { timeoutMs: SEND_TIMEOUT_MS },
      );
      if (!sent.submitted) {
        throw new Error(
          `the prompt was typed into ${this.session.name} but it did not react to Enter (attach with \`clippy attach ${this.session.name}\` to see why)`,
        );
      }
      this.enqueue(async () => {
        this.sendDone = true;
        if (this.cancelled) await this.interrupt();
        await this.check();
      });
      return await this.done;
    } catch (err) {
      if (this.finished) return this.done;
      this.finish();
      throw acpError(err);
    } finally {
      off();
      offSource?.();
      this.question?.abort.abort();
      if (this.graceTimer) clearTimeout(this.graceTimer);
    }
  }

  /**
   * Before the text goes in: a session still starting is waited for (up to STARTUP_TIMEOUT_MS),
   * and a question it asks (a first start's trust dialog) goes to the editor first — typed into
   * the question, the prompt would answer it. A busy session is left to `send`, which waits.
   */
  private async untilReady(): Promise<void> {
    const deadline = Date.now() + STARTUP_TIMEOUT_MS;
    while (!this.cancelled && !this.finished) {
      const { sessions } = await this.daemon.request('list_sessions', {});
      const info = sessions.find((x) => x.session === this.session.id);
      if (!info || info.state === 'exited') {
        throw agentExited(
          this.session.name,
          info ? { exit_code: info.exit_code ?? null, signal: info.exit_signal ?? null } : null,
        );
      }
      if (info.state === 'idle' || info.state === 'busy') return;
      if (info.state === 'blocked') {
        if (!info.menu) {
          throw new Error(
            `${this.session.name} waits for input that is not a choice: answer it in a terminal (clippy attach ${this.session.name}), then send the prompt again`,
          );
        }
        this.ask(info.menu);
        await this.nextState();
        continue;
      }
      const left = deadline - Date.now();
      if (left <= 0) {
        throw new Error(
          `${this.session.name} did not show its prompt within ${STARTUP_TIMEOUT_MS / 1000} s of starting (see it with clippy attach ${this.session.name})`,
        );
      }
      await this.nextState(left);
    }
  }

  /** Resolves at the session's next state change (or cancel), or after `timeoutMs`. */
  private nextState(timeoutMs?: number): Promise<void> {
    return new Promise((resolve) => {
      const timer = timeoutMs === undefined ? null : setTimeout(resolve, timeoutMs);
      this.stateWaiters.push(() => {
        if (timer) clearTimeout(timer);
        resolve();
      });
    });
  }

  private wakeState(): void {
    const waiters = this.stateWaiters;
    this.stateWaiters = [];
    for (const wake of waiters) wake();
  }

  /** `session/cancel`: interrupt the agent, and end the prompt `cancelled` once it stopped. */
  cancel(): void {
    if (this.cancelled || this.finished) return;
    this.cancelled = true;
    this.question?.abort.abort();
    this.wakeState();
    this.enqueue(async () => {
      if (this.sendDone) await this.interrupt();
    });
    this.graceTimer = setTimeout(() => this.enqueue(() => this.complete(null)), CANCEL_GRACE_MS);
    this.graceTimer.unref();
  }

  /** Events are handled one at a time, in the order they came (each may ask the daemon). */
  private enqueue(step: () => Promise<void> | void): void {
    this.chain = this.chain
      .then(async () => {
        if (!this.finished) await step();
      })
      .catch((err: unknown) => {
        if (this.finished) return;
        this.finish();
        this.rejectDone(acpError(err));
      });
  }

  private async onPush(push: SessionPush): Promise<void> {
    switch (push.type) {
      case 'turn_progress':
        // Before the text went in, a turn in progress is someone else's.
        if (this.sendDone && !this.source) await this.onText(push.text);
        return;
      case 'state_changed':
        this.state = push.state;
        this.wakeState();
        if (push.state !== 'blocked') await this.questionGone();
        if (!this.sendIssued) return;
        if (push.state === 'busy' || push.state === 'blocked') this.sawBusy = true;
        if (push.state === 'blocked' && this.sendDone && !this.cancelled)
          this.ask(push.menu ?? null);
        if (push.state === 'idle' && this.sendDone) await this.check();
        return;
      case 'turn_completed':
        if (this.sendDone && push.turn.seq > this.after) await this.check();
        return;
      case 'session_exited':
      case 'session_removed':
        throw agentExited(this.session.name, push.type === 'session_exited' ? push : null);
    }
  }

  private async onText(text: string): Promise<void> {
    if (this.cancelled) return;
    const chunk = this.stream.progress(text);
    if (chunk) await this.sendChunk(chunk.messageId, chunk.text);
  }

  /**
   * Looks for the prompt's turn among the newest; ends the prompt with it. An agent back at its
   * prompt with no such turn printed nothing (no empty turns): the prompt ends without text.
   */
  private async check(): Promise<void> {
    const { turns } = await this.daemon.request('list_turns', {
      session: this.session.id,
      limit: TURNS_LOOKED_AT,
    });
    const want = compact(this.text);
    const mine = turns
      .filter((t) => t.seq > this.after)
      .reverse()
      .find((t) => {
        // The daemon keeps a prompt's first 4095 characters and marks the cut with `…`.
        const got = compact(t.prompt.endsWith('…') ? t.prompt.slice(0, -1) : t.prompt);
        return got !== '' && (got === want || want.startsWith(got));
      });
    if (mine) {
      const { turn } = await this.daemon.request('get_turn', { turn_id: mine.turn_id });
      return this.complete(turn);
    }
    if (this.sawBusy && this.state === 'idle') {
      const others = turns.filter((t) => t.seq > this.after).length;
      if (others > 0) {
        // Turns of others (a person at a terminal, another editor); this prompt made none.
        process.stderr.write(
          `clippy acp: ${this.session.name} is back at its prompt; none of its ${others} new turn(s) answers this prompt\n`,
        );
      }
      return this.complete(null);
    }
  }

  private async complete(turn: Turn | null): Promise<void> {
    if (this.finished) return;
    await this.questionGone(this.cancelled ? 'cancelled' : 'answered in a terminal');
    if (turn) {
      const chunk = this.stream.final(turn.text);
      if (chunk) await this.sendChunk(chunk.messageId, chunk.text);
    }
    this.finish();
    this.resolveDone(this.cancelled ? 'cancelled' : 'end_turn');
  }

  private finish(): void {
    this.finished = true;
    this.wakeState();
    this.question?.abort.abort();
    if (this.graceTimer) clearTimeout(this.graceTimer);
    this.graceTimer = null;
  }

  private async interrupt(): Promise<void> {
    // An agent already back at its prompt has nothing to stop: a key would reach its prompt.
    if (this.state === 'idle' && this.sawBusy) return;
    await this.daemon.request('interrupt', { session: this.session.id });
  }

  private async sendChunk(messageId: string, text: string): Promise<void> {
    await this.client.notify('session/update', {
      sessionId: this.acpSessionId,
      update: { sessionUpdate: 'agent_message_chunk', messageId, content: { type: 'text', text } },
    });
  }

  /**
   * The agent asks a question: the editor answers it (`session/request_permission`), and the
   * choice is pressed — with the keys of the menu as the screen shows it then, in case a person
   * at a terminal moved its cursor meanwhile. Runs beside the event queue: a person may answer
   * first, and the editor's question then goes away.
   */
  private ask(menu: Menu | null): void {
    if (this.question) return;
    const q: Question = {
      abort: new AbortController(),
      toolCallId: `${this.session.id}:question:${++this.questions}`,
      title: menu?.question || `${this.session.name} waits for input`,
      settled: false,
    };
    this.question = q;
    void (async () => {
      try {
        if (!menu) {
          // No choices on the screen (a text field, a program reading input): say where to answer.
          const waiting = `${q.title}: answer it in a terminal (clippy attach ${this.session.name})`;
          await this.client.notify('session/update', {
            sessionId: this.acpSessionId,
            update: {
              sessionUpdate: 'tool_call',
              ...questionToolCall(null, q.toolCallId, waiting),
            },
          });
          return;
        }
        const index = await askEditor(
          this.client,
          this.acpSessionId,
          menu,
          q.toolCallId,
          q.abort.signal,
        );
        if (q.abort.signal.aborted || this.finished) return;
        q.settled = true;
        if (index === null) {
          // The editor dismissed the question: dismiss it on the screen too, where it can be.
          if (!this.cancelled && !menu.cancel) {
            throw new Error(
              `the editor dismissed the question of ${this.session.name}, which cannot be dismissed on its screen: answer it in a terminal (clippy attach ${this.session.name})`,
            );
          }
          if (menu.cancel && !this.cancelled) await this.press(menu.cancel);
          await settleToolCall(
            this.client,
            this.acpSessionId,
            q.toolCallId,
            `${q.title} (dismissed)`,
          );
          return;
        }
        const label = menu.options[index]!.label;
        await this.choose(label, index);
        await settleToolCall(this.client, this.acpSessionId, q.toolCallId, `${q.title} → ${label}`);
      } catch (err) {
        this.enqueue(() => {
          throw err;
        });
      }
    })();
  }

  /** Presses the keys of the choice labelled `label`, as the menu is on the screen now. */
  private async choose(label: string, index: number): Promise<void> {
    const { sessions } = await this.daemon.request('list_sessions', {});
    const now = sessions.find((s) => s.session === this.session.id);
    if (now?.state !== 'blocked' || !now.menu) return; // answered at a terminal meanwhile
    const same = now.menu.options[index]?.label === label ? now.menu.options[index] : undefined;
    const option = same ?? now.menu.options.find((o) => o.label === label);
    if (!option) {
      throw new Error(
        `the question on ${this.session.name}'s screen changed while the editor asked it: "${label}" is no longer a choice`,
      );
    }
    await this.press(option.keys);
  }

  private async press(keys: string[]): Promise<void> {
    await this.daemon.request('send', { session: this.session.id, keys });
  }

  /**
   * The agent no longer asks (answered from the editor, or by a person at a terminal): the
   * editor stops asking, and the question's tool call is marked done.
   */
  private async questionGone(how = 'answered in a terminal'): Promise<void> {
    const q = this.question;
    if (!q) return;
    this.question = null;
    q.abort.abort();
    if (q.settled) return;
    q.settled = true;
    await settleToolCall(this.client, this.acpSessionId, q.toolCallId, `${q.title} (${how})`);
  }
}

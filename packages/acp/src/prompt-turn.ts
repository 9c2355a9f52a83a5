import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { AgentContext, StopReason } from '@agentclientprotocol/sdk';
import type { Menu, SessionState, Turn } from '@clippy/protocol';
import { AnswerStream } from './answer-stream.js';
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
 * A session that has not shown its first prompt yet (an agent starting: loading its
 * configuration, connecting its tools) is waited for as long as its program runs, with no
 * deadline: on a loaded machine OpenCode took over a minute, and a user wants their agent late
 * rather than an error (the editor's cancel ends the wait; an agent that exits fails it). After
 * this long without a prompt, the editor is told once, as a thought, what it waits for and
 * where to look: agents show their prompt within a few seconds on an idle machine.
 */
export const STARTUP_NOTICE_MS = 10_000;

/**
 * In a session whose agent reports its own turns (its channel: hooks, notify, chat file), the
 * daemon holds a turn the screen completed until the agent's report of it comes (up to 10 s,
 * the broker's CHANNEL_WAIT_MS): the agent is back at its prompt before the turn is stored. A
 * prompt waits this long for its turn there before it ends without one.
 */
export const CHANNEL_HOLD_MS = 15_000;

/**
 * After a choice is pressed: how long the agent has to leave its question (a state change)
 * before the keys are taken as dropped and pressed again if the same question still shows, and
 * how soon the same question shown again counts as the keys dropped (agents redraw within a
 * second; a second identical question after the tool ran takes a model's answer).
 */
export const CHOICE_TAKEN_MS = 3_000;
/** A choice is pressed at most this many times. */
const CHOICE_PRESSES = 3;
/** A blocked session without a menu yet is looked at this often for one (its dialog drawn). */
const MENU_POLL_MS = 250;
/** After this long without a menu, the editor is told to answer the question in a terminal. */
export const MENU_WAIT_MS = 2_000;
/** A menu still changing after this long is asked about as it stands (a person moving its cursor). */
const MENU_SETTLE_MAX_MS = 2_000;

/** Newest turns read to find the one a prompt produced (others may complete meanwhile). */
const TURNS_LOOKED_AT = 20;

/** A choice pressed on the agent's menu, and when. */
interface Pressed {
  menu: Menu;
  label: string;
  index: number;
  at: number;
  times: number;
}

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

/** The same question on the screen, with the same choice under the cursor. */
function sameQuestion(a: Menu, b: Menu | null): boolean {
  if (!b || a.question !== b.question || a.options.length !== b.options.length) return false;
  if (a.detail.join('\n') !== b.detail.join('\n')) return false;
  return a.options.every(
    (o, i) => o.label === b.options[i]!.label && o.selected === b.options[i]!.selected,
  );
}

/** `prompt` as the detector followed it, without whitespace (wraps, CRs and indents differ). */
const compact = (s: string): string => s.replace(/\s+/gu, '');

/**
 * One `session/prompt`: the text is typed into the agent the way `clippy ask` does it (bracketed
 * paste where the agent enabled it, Enter as its own write, confirmed), the answer streams while
 * the turn grows, a question the agent asks goes to the editor as `session/request_permission`,
 * and the prompt ends with the turn: `end_turn`, or `cancelled` after `cancel()` (which
 * interrupts the agent as Esc or Ctrl-C would).
 *
 * What grows is the screen's text. Where it is the answer (no agent channel), it streams as
 * `agent_message_chunk` and the turn's text ends the same message. Where the agent's channel
 * gives the turn's text (its own Markdown, which the screen renders differently: bullets for
 * list markers, no fences, wrapped lines), the screen's text streams as `agent_thought_chunk`
 * (the agent at work) and the answer comes as one message when the turn completes: an editor
 * never shows the answer twice.
 *
 * The turn that answers is the first completed after the text was sent whose input is the text:
 * a person typing in an attached terminal, or another ACP client, makes turns of their own.
 */
export class PromptTurn {
  private readonly stream = new AnswerStream();
  /** The screen's growing text, where the answer will be the agent's own (see above). */
  private readonly screen = new AnswerStream();
  /** The agent reports its own turns (its channel is wired): turns are held for its report. */
  private channel = false;
  /** Its report gives the turn's text (the channel has not gone silent). */
  private agentText = false;
  /** The question of the latest `blocked` state. */
  private menu: Menu | null = null;
  private holdTimer: NodeJS.Timeout | null = null;
  /** The choice pressed last: pressed again if the agent shows its question again unchanged. */
  private pressed: Pressed | null = null;
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
  ) {}

  private get daemon() {
    return this.link.daemon;
  }

  async run(): Promise<StopReason> {
    const off = this.link.listen(this.session.id, (push) => this.enqueue(() => this.onPush(push)));
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
        // The agent may have asked before `send` returned (a fast model, a slow confirmation).
        else if (this.state === 'blocked') this.ask(this.menu);
        await this.check();
      });
      return await this.done;
    } catch (err) {
      if (this.finished) return this.done;
      this.finish();
      throw acpError(err);
    } finally {
      off();
      this.question?.abort.abort();
      if (this.graceTimer) clearTimeout(this.graceTimer);
      this.stopHolding();
    }
  }

  /**
   * Before the text goes in: a session still starting is waited for (see STARTUP_NOTICE_MS),
   * and a question it asks (a first start's trust dialog) goes to the editor first — typed into
   * the question, the prompt would answer it. A busy session is left to `send`, which waits.
   */
  private async untilReady(): Promise<void> {
    const notice = Date.now() + STARTUP_NOTICE_MS;
    let noticed = false;
    while (!this.cancelled && !this.finished) {
      const { sessions } = await this.daemon.request('list_sessions', {});
      const info = sessions.find((x) => x.session === this.session.id);
      if (!info || info.state === 'exited') {
        throw agentExited(
          this.session.name,
          info ? { exit_code: info.exit_code ?? null, signal: info.exit_signal ?? null } : null,
        );
      }
      this.channel = info.agent !== undefined;
      this.agentText = this.channel && info.agent_channel !== 'silent';
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
      const left = notice - Date.now();
      if (noticed || left > 0) {
        await this.nextState(noticed ? undefined : left);
        continue;
      }
      noticed = true;
      await this.sendChunk(
        randomUUID(),
        `${this.session.name} has not shown its prompt yet (still starting after ${STARTUP_NOTICE_MS / 1000} s): the prompt goes in once it does. See it with clippy attach ${this.session.name}, or cancel.\n`,
        true,
      );
    }
  }

  /**
   * Resolves at the session's next state change (or cancel) with true, or after `timeoutMs` with
   * false.
   */
  private nextState(timeoutMs?: number): Promise<boolean> {
    return new Promise((resolve) => {
      const timer = timeoutMs === undefined ? null : setTimeout(() => resolve(false), timeoutMs);
      this.stateWaiters.push(() => {
        if (timer) clearTimeout(timer);
        resolve(true);
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
        if (this.sendDone) await this.onText(push.text);
        return;
      case 'state_changed':
        this.state = push.state;
        this.menu = push.state === 'blocked' ? (push.menu ?? null) : null;
        if (push.state === 'idle') this.pressed = null;
        if (push.state !== 'idle') this.stopHolding();
        this.wakeState();
        if (push.state !== 'blocked') await this.questionGone();
        if (!this.sendIssued) return;
        if (push.state === 'busy' || push.state === 'blocked') this.sawBusy = true;
        if (push.state === 'blocked' && this.sendDone && !this.cancelled && !this.pressAgain())
          this.ask(this.menu);
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
    const chunk = (this.agentText ? this.screen : this.stream).progress(text);
    if (chunk) await this.sendChunk(chunk.messageId, chunk.text, this.agentText);
  }

  /**
   * Looks for the prompt's turn among the newest; ends the prompt with it. An agent back at its
   * prompt with no such turn printed nothing (no empty turns): the prompt ends without text —
   * where the agent reports its own turns, once the daemon had time to join its report
   * (CHANNEL_HOLD_MS).
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
      if (this.channel) {
        this.holdTimer ??= setTimeout(
          () => this.enqueue(() => this.giveUpWaiting(others)),
          CHANNEL_HOLD_MS,
        );
        return;
      }
      return this.endWithoutTurn(others);
    }
  }

  /** The agent is busy again (or done): no longer waiting for a held turn from its last idle. */
  private stopHolding(): void {
    if (this.holdTimer) clearTimeout(this.holdTimer);
    this.holdTimer = null;
  }

  /** The held turn never came: the prompt ends without one if the agent is still at its prompt. */
  private async giveUpWaiting(others: number): Promise<void> {
    this.holdTimer = null;
    if (this.state === 'idle') await this.endWithoutTurn(others);
  }

  private async endWithoutTurn(others: number): Promise<void> {
    if (others > 0) {
      // Turns of others (a person at a terminal, another editor); this prompt made none.
      process.stderr.write(
        `clippy acp: ${this.session.name} is back at its prompt; none of its ${others} new turn(s) answers this prompt\n`,
      );
    }
    return this.complete(null);
  }

  private async complete(turn: Turn | null): Promise<void> {
    if (this.finished) return;
    await this.questionGone(this.cancelled ? 'cancelled' : 'answered in a terminal');
    if (turn) {
      // The screen's thoughts end as the screen ended: a stream sends a line only once two looks
      // agree and never the last, and a quick answer (or a loaded machine's few looks) stops
      // changing before that — its thoughts stopped mid-answer.
      const thought =
        this.agentText && turn.screen_text !== undefined
          ? this.screen.final(turn.screen_text)
          : null;
      if (thought) await this.sendChunk(thought.messageId, thought.text, true);
      const chunk = this.stream.final(turn.text);
      if (chunk) await this.sendChunk(chunk.messageId, chunk.text);
    }
    this.finish();
    this.resolveDone(this.cancelled ? 'cancelled' : 'end_turn');
  }

  private finish(): void {
    this.finished = true;
    this.stopHolding();
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

  private async sendChunk(messageId: string, text: string, thought = false): Promise<void> {
    await this.client.notify('session/update', {
      sessionId: this.acpSessionId,
      update: {
        sessionUpdate: thought ? 'agent_thought_chunk' : 'agent_message_chunk',
        messageId,
        content: { type: 'text', text },
      },
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
          const drawn = await this.menuDrawn(q);
          if (drawn && this.question === q && !q.settled) {
            this.question = null;
            this.ask(drawn);
          }
          return;
        }
        menu = await this.menuSettled(q, menu);
        if (!menu || q.abort.signal.aborted || this.finished) return;
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

  /**
   * A blocked session whose question has no choices the screen shows yet: its dialog may still
   * be being drawn (the daemon reads the menu again as the screen changes, without a new state),
   * so its menu is looked for every MENU_POLL_MS while it stays blocked. After MENU_WAIT_MS with
   * none (a text field, a program reading a line), the editor is told where to answer it, and
   * the looking goes on. Resolves with the menu once there is one, or null when the question
   * went away.
   */
  private async menuDrawn(q: Question): Promise<Menu | null> {
    const since = Date.now();
    let told = false;
    while (!q.abort.signal.aborted && !this.finished) {
      const { sessions } = await this.daemon.request('list_sessions', {});
      const now = sessions.find((s) => s.session === this.session.id);
      if (now?.state !== 'blocked') return null;
      if (now.menu) {
        if (told) await settleToolCall(this.client, this.acpSessionId, q.toolCallId, q.title);
        return now.menu;
      }
      if (!told && Date.now() - since >= MENU_WAIT_MS) {
        told = true;
        const waiting = `${q.title}: answer it in a terminal (clippy attach ${this.session.name})`;
        await this.client.notify('session/update', {
          sessionId: this.acpSessionId,
          update: { sessionUpdate: 'tool_call', ...questionToolCall(null, q.toolCallId, waiting) },
        });
      }
      await sleep(MENU_POLL_MS, undefined, { signal: q.abort.signal }).catch(() => undefined);
    }
    return null;
  }

  /**
   * The menu as the editor is to see it: the first read of a dialog still being drawn can lack
   * its last choices (Codex's "No" under load), and an editor's question cannot be changed once
   * asked. So the menu is read again every MENU_POLL_MS until two reads agree (or
   * MENU_SETTLE_MAX_MS passed). Resolves null when the question went away meanwhile.
   */
  private async menuSettled(q: Question, first: Menu): Promise<Menu | null> {
    const deadline = Date.now() + MENU_SETTLE_MAX_MS;
    let menu = first;
    while (!q.abort.signal.aborted && !this.finished) {
      await sleep(MENU_POLL_MS, undefined, { signal: q.abort.signal }).catch(() => undefined);
      if (q.abort.signal.aborted) return null;
      const { sessions } = await this.daemon.request('list_sessions', {});
      const now = sessions.find((s) => s.session === this.session.id);
      if (now?.state !== 'blocked') return null;
      const read = now.menu ?? menu;
      if (JSON.stringify(read) === JSON.stringify(menu) || Date.now() >= deadline) return read;
      menu = read;
    }
    return null;
  }

  /**
   * The agent shows again, unchanged, the question whose choice was just pressed (the same
   * command, the same choice under the cursor, within CHOICE_TAKEN_MS, never back at its prompt
   * in between): it dropped the keys. Gemini CLI drops keys that come while it still sets up its
   * dialog, redraws, and shows it again. The choice is pressed again rather than asked twice;
   * another question, or the same one later, is asked.
   */
  private pressAgain(): boolean {
    const p = this.pressed;
    this.pressed = null;
    const menu = this.menu;
    if (!p || !menu || p.times >= CHOICE_PRESSES) return false;
    if (!sameQuestion(menu, p.menu) || Date.now() - p.at > CHOICE_TAKEN_MS) return false;
    this.choose(p.label, p.index, p.times).catch((err: unknown) =>
      this.enqueue(() => {
        throw err;
      }),
    );
    return true;
  }

  /**
   * Presses the keys of the choice labelled `label`, as the menu is on the screen now. When the
   * session neither changes state nor leaves the question within CHOICE_TAKEN_MS, and its
   * screen still shows the same question with the same choice under the cursor, the keys were
   * dropped: the choice is pressed again (up to CHOICE_PRESSES times in all).
   */
  private async choose(label: string, index: number, times = 0): Promise<void> {
    for (let pressed = times; pressed < CHOICE_PRESSES; pressed++) {
      const { sessions } = await this.daemon.request('list_sessions', {});
      const now = sessions.find((s) => s.session === this.session.id);
      if (now?.state !== 'blocked' || !now.menu) return; // answered (at a terminal, or by us)
      if (pressed > times && !sameQuestion(now.menu, this.pressed?.menu ?? null)) return;
      const same = now.menu.options[index]?.label === label ? now.menu.options[index] : undefined;
      const option = same ?? now.menu.options.find((o) => o.label === label);
      if (!option) {
        throw new Error(
          `the question on ${this.session.name}'s screen changed while the editor asked it: "${label}" is no longer a choice`,
        );
      }
      this.pressed = { menu: now.menu, label, index, at: Date.now(), times: pressed + 1 };
      await this.press(option.keys);
      if (await this.nextState(CHOICE_TAKEN_MS)) return;
      if (this.finished || this.cancelled) return;
    }
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

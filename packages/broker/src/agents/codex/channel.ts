import { watch } from 'node:fs';
import { dirname, join } from 'node:path';
import type { AgentTurn } from '@clippy/protocol';
import { defined } from '../records.js';
import { Serial } from '../serial.js';
import { PROMPT_SLACK_MS, samePrompt } from '../turn-join.js';
import type {
  AgentChannel,
  ChannelContext,
  ChannelTurn,
  ChannelUpdate,
  ScreenTurnInfo,
} from '../types.js';
import { CodexRollout, findRollout, recentRollouts, type RolloutTurn } from './rollout.js';

/** Codex's home: `$CODEX_HOME`, else `~/.codex`. */
export function codexHome(env: Record<string, string | undefined>): string {
  return env.CODEX_HOME || join(env.HOME ?? '', '.codex');
}

/**
 * Longest the read of a turn the screen completed waits for Codex to record its end in the
 * rollout (Codex writes it as it draws its prompt again; a loaded machine may flush it late).
 * Only a turn for the model whose end is not recorded yet waits.
 */
export const CODEX_RECORD_WAIT_MS = 5_000;
/**
 * Between two looks for the session's rollout before it is known (its first turn): Codex
 * creates it in a day folder that may not exist yet, so there is no one file to watch.
 */
const ROLLOUT_LOOK_MS = 100;
/** Its own commands (/status) and shell lines (!ls) end no model turn: nothing is recorded. */
const NOT_FOR_THE_MODEL = /^\s*[/!]/u;

/**
 * The rollouts the live Codex channels of this daemon read: a session's rollout is never
 * taken by another session's search (two sessions in one folder).
 */
const taken = new Map<string, CodexChannel>();

/**
 * Codex's channel (checked on codex-cli 0.171.0) is its rollout under `$CODEX_HOME/sessions`: it
 * records each turn (`task_started`, the user's message, `task_complete` with the last agent
 * message, exact), read when the screen completes the turn and, while it is open, as the file
 * grows. Nothing of Codex's runs for clippy: its `notify` program gets each turn's text (the
 * user's messages and the answer) as its last command-line argument, which every local user
 * can read in /proc; its hooks, which take JSON on stdin, run only once the user has reviewed
 * and trusted them in Codex's /hooks (a dialog at start for a hook given on the command line),
 * and the flag that skips that trusts every hook the user has not reviewed. The session's
 * rollout is the one in its folder, written since it started, whose latest turn is the
 * screen's (and that no other session of this daemon reads); a resumed session names its own.
 */
export class CodexChannel implements AgentChannel {
  readonly agent = 'codex' as const;
  private thread: string | undefined;
  private rollout: CodexRollout | null = null;
  private readonly home: string;
  private readonly cwd: string;
  /** When the session started: its rollout is written to since. */
  private readonly since = Date.now();
  /** The turn given already by `recorded` (the followed record): once. */
  private delivered: string | undefined;
  /** The rollout is read by one caller at a time (the screen's turns, the followed record). */
  private readonly reads = new Serial();

  constructor(ctx: ChannelContext) {
    this.thread = ctx.agentSession;
    this.home = codexHome(ctx.env);
    this.cwd = ctx.cwd;
  }

  get agentSession(): string | undefined {
    return this.thread;
  }

  onEvent(event: string): Promise<ChannelUpdate> {
    return Promise.resolve({
      kind: 'ignored',
      why: `Codex sends clippy nothing (its rollout is read): ${event}`,
    });
  }

  expectsReport(turn: ScreenTurnInfo): boolean {
    // Its own commands (/status, /model) end no model turn.
    return !turn.interrupted && !NOT_FOR_THE_MODEL.test(turn.prompt);
  }

  recordPath(): string | undefined {
    return this.rollout?.path;
  }

  /** The followed turn, once the rollout says it ended (given once). */
  async recorded(turn: ScreenTurnInfo): Promise<ChannelTurn | null> {
    const t = await this.ended(turn);
    if (!t || t.answer == null || t.turnId === this.delivered) return null;
    this.delivered = t.turnId;
    return this.channelTurn(t);
  }

  /**
   * The turn the screen completed, as the rollout records it: waited for (CODEX_RECORD_WAIT_MS
   * at most) when it is for the model and its end is not recorded yet. Null when the rollout
   * holds no such turn.
   */
  async readTurn(turn: ScreenTurnInfo): Promise<ChannelTurn | null> {
    if (!this.expectsReport(turn)) {
      const t = await this.ended(turn);
      return t ? this.channelTurn(t) : null;
    }
    const deadline = Date.now() + CODEX_RECORD_WAIT_MS;
    for (;;) {
      const change = changeOf(this.rollout?.path, deadline - Date.now());
      const t = await this.ended(turn);
      if (t || Date.now() >= deadline) {
        change.cancel();
        return t ? this.channelTurn(t) : null;
      }
      await change.done;
    }
  }

  dispose(): void {
    if (this.rollout && taken.get(this.rollout.path) === this) taken.delete(this.rollout.path);
    this.rollout = null;
  }

  /** The screen's turn when the rollout says it ended (found first, when it is not known). */
  private ended(turn: ScreenTurnInfo): Promise<RolloutTurn | undefined> {
    return this.reads.run(async () => {
      const rollout = this.rollout ?? (await this.discover(turn));
      const t = rollout ? this.ofTurn(await rollout.latest(), turn) : undefined;
      return t?.ended ? t : undefined;
    });
  }

  private channelTurn(t: RolloutTurn): ChannelTurn {
    return {
      answer: t.answer ?? null,
      ...(t.prompt !== undefined ? { prompt: t.prompt } : {}),
      record: this.record('codex-rollout', t.turnId, t),
    };
  }

  /** `t` when it is the screen's turn: its prompt recorded during it, the same text. */
  private ofTurn(t: RolloutTurn | undefined, turn: ScreenTurnInfo): RolloutTurn | undefined {
    if (!t || t.prompt === undefined || (t.promptAt ?? 0) < turn.startedAt - PROMPT_SLACK_MS)
      return undefined;
    return samePrompt(t.prompt, turn.prompt) ? t : undefined;
  }

  /**
   * The session's rollout: the thread's own when it is known (a resumed session), else among
   * the rollouts of its folder written since it started and read by no other session here, the
   * one whose latest turn is the screen's. None when none or more than one says so (two Codex
   * sessions in one folder asked the same at once, before either was known): the turn then
   * keeps the screen's text, and the next one looks again.
   */
  private async discover(turn: ScreenTurnInfo): Promise<CodexRollout | null> {
    if (this.thread) {
      const path = await findRollout(this.home, this.thread);
      if (path) this.take(new CodexRollout(path));
      return this.rollout;
    }
    const found: { rollout: CodexRollout; thread: string | undefined }[] = [];
    for (const c of await recentRollouts(this.home, this.cwd, this.since)) {
      const holder = taken.get(c.path);
      if (holder && holder !== this) continue;
      const rollout = new CodexRollout(c.path);
      if (this.ofTurn(await rollout.latest(), turn)) found.push({ rollout, thread: c.thread });
    }
    if (found.length !== 1) return null;
    this.take(found[0]!.rollout);
    this.thread = found[0]!.thread;
    return this.rollout;
  }

  private take(rollout: CodexRollout): void {
    this.rollout = rollout;
    taken.set(rollout.path, this);
  }

  private record(via: string, turnId: string | undefined, r: RolloutTurn | undefined): AgentTurn {
    return defined({
      agent: 'codex',
      via,
      session_id: this.thread,
      turn_id: turnId,
      model: r?.model,
      input_tokens: r?.inputTokens,
      output_tokens: r?.outputTokens,
      completed_at: r?.at ?? Date.now(),
    }) as AgentTurn;
  }
}

/**
 * Resolves (`done`) once the rollout at `path` changes (watched through its folder), or at once
 * when it is not known yet (the caller looks again after ROLLOUT_LOOK_MS), or after `ms`.
 */
function changeOf(
  path: string | undefined,
  ms: number,
): { done: Promise<void>; cancel: () => void } {
  let cancel = () => {};
  const done = new Promise<void>((resolve) => {
    const timer = setTimeout(
      () => cancel(),
      Math.max(0, path ? ms : Math.min(ms, ROLLOUT_LOOK_MS)),
    );
    let watcher: ReturnType<typeof watch> | null = null;
    cancel = () => {
      clearTimeout(timer);
      watcher?.close();
      resolve();
    };
    if (!path) return;
    const name = path.slice(dirname(path).length + 1);
    try {
      watcher = watch(dirname(path), { persistent: false }, (_e, f) => {
        if (f === null || f === name) cancel();
      });
      watcher.on('error', () => cancel());
    } catch {
      // Not watchable: the wait lasts until its deadline.
    }
  });
  return { done, cancel };
}

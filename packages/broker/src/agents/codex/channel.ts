import { join } from 'node:path';
import type { AgentTurn } from '@clippy/protocol';
import { defined, parsePayload, str } from '../records.js';
import { Serial } from '../serial.js';
import { samePrompt } from '../turn-join.js';
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
 * Clock slack when matching the rollout's prompt to the screen's turn: Codex records the user's
 * message after clippy saw its Enter, on the same clock; this only absorbs rounding.
 */
const PROMPT_SLACK_MS = 50;

/**
 * Codex's channel (checked on codex-cli 0.171.0). Its rollout under `$CODEX_HOME/sessions`
 * records each turn (`task_started`, the `user_message`, `task_complete` with the last agent
 * message, exact): read as soon as the screen completes the turn (or, while it is open, as the
 * file grows), so no turn waits for the `notify` process. `notify` gets one JSON argument at
 * each turn's end, `{"type":"agent-turn-complete","thread-id","turn-id","input-messages",
 * "last-assistant-message"}`: the fallback when the rollout does not say so (yet). It fires for
 * the side thread that names the task too: only a thread with a rollout is the user's
 * conversation. Before Codex names its thread, the session's rollout is the one in its folder,
 * written since it started, whose latest turn is the screen's.
 */
export class CodexChannel implements AgentChannel {
  readonly agent = 'codex' as const;
  private thread: string | undefined;
  private rollout: CodexRollout | null = null;
  /** Threads found to be side threads (no rollout). */
  private readonly side = new Set<string>();
  private readonly home: string;
  private readonly cwd: string;
  /** When the session started: its rollout is written to since. */
  private readonly since = Date.now();
  /** The turn reported already (by the rollout or by notify): once. */
  private delivered: string | undefined;
  /** The rollout is read by one caller at a time (notify's events, the screen's turns). */
  private readonly reads = new Serial();

  constructor(ctx: ChannelContext) {
    this.thread = ctx.agentSession;
    this.home = codexHome(ctx.env);
    this.cwd = ctx.cwd;
  }

  get agentSession(): string | undefined {
    return this.thread;
  }

  async onEvent(event: string, payload: string): Promise<ChannelUpdate> {
    if (event !== 'notify') return { kind: 'ignored', why: `Codex event ${event}` };
    const p = parsePayload('codex', event, payload);
    if (p.type !== 'agent-turn-complete')
      return { kind: 'ignored', why: `Codex notification ${String(p.type)}` };
    const thread = str(p['thread-id']);
    const turnId = str(p['turn-id']);
    if (!thread) throw new Error('codex notify: the payload has no thread-id');
    if (this.side.has(thread)) return { kind: 'ignored', why: `side thread ${thread}` };
    if (thread !== this.thread || !this.rollout) {
      const path = await findRollout(this.home, thread);
      if (!path) {
        this.side.add(thread);
        return { kind: 'ignored', why: `thread ${thread} has no rollout: a side thread` };
      }
      this.thread = thread;
      if (path !== this.rollout?.path) this.rollout = new CodexRollout(path);
    }
    if (turnId !== undefined && turnId === this.delivered)
      return { kind: 'ignored', why: `turn ${turnId} was read from the rollout already` };
    this.delivered = turnId;
    const rollout = this.rollout;
    const r = turnId ? await this.reads.run(() => rollout.turn(turnId)) : undefined;
    const inputs = Array.isArray(p['input-messages'])
      ? (p['input-messages'] as unknown[]).filter((m): m is string => typeof m === 'string')
      : [];
    return {
      kind: 'turn',
      turn: {
        answer: str(p['last-assistant-message']) ?? null,
        // The thread's user messages so far: the last is this turn's.
        ...(inputs.length > 0 ? { prompt: inputs.at(-1)! } : {}),
        record: this.record('codex-notify', turnId, r),
      },
    };
  }

  expectsReport(turn: ScreenTurnInfo): boolean {
    // Its own commands (/status, /model) end no model turn: no notification comes for them.
    return !turn.interrupted && !turn.prompt.trimStart().startsWith('/');
  }

  recordPath(): string | undefined {
    return this.rollout?.path;
  }

  async recorded(turn: ScreenTurnInfo): Promise<ChannelTurn | null> {
    const t = await this.reads.run(async () => {
      const rollout = this.rollout ?? (await this.discover(turn));
      return rollout ? this.ofTurn(await rollout.latest(), turn) : undefined;
    });
    if (!t?.ended || t.answer == null || t.turnId === this.delivered) return null;
    this.delivered = t.turnId;
    return {
      answer: t.answer,
      ...(t.prompt !== undefined ? { prompt: t.prompt } : {}),
      record: this.record('codex-rollout', t.turnId, t),
    };
  }

  dispose(): void {
    this.rollout = null;
  }

  /** `t` when it is the screen's turn: its prompt recorded during it, the same text. */
  private ofTurn(t: RolloutTurn | undefined, turn: ScreenTurnInfo): RolloutTurn | undefined {
    if (!t || t.prompt === undefined || (t.promptAt ?? 0) < turn.startedAt - PROMPT_SLACK_MS)
      return undefined;
    return samePrompt(t.prompt, turn.prompt) ? t : undefined;
  }

  /**
   * The session's rollout before Codex named its thread: among the rollouts of its folder
   * written since it started, the one whose latest turn is the screen's. None when no rollout or
   * more than one says so (two Codex sessions in one folder asked the same at once): notify
   * names it then.
   */
  private async discover(turn: ScreenTurnInfo): Promise<CodexRollout | null> {
    if (this.thread) {
      const path = await findRollout(this.home, this.thread);
      if (path) this.rollout = new CodexRollout(path);
      return this.rollout;
    }
    const found: { rollout: CodexRollout; thread: string | undefined }[] = [];
    for (const c of await recentRollouts(this.home, this.cwd, this.since)) {
      const rollout = new CodexRollout(c.path);
      if (this.ofTurn(await rollout.latest(), turn)) found.push({ rollout, thread: c.thread });
    }
    if (found.length !== 1) return null;
    this.rollout = found[0]!.rollout;
    this.thread = found[0]!.thread;
    return this.rollout;
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

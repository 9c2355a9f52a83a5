import { join } from 'node:path';
import type { AgentTurn } from '@clippy/protocol';
import { defined, parsePayload, str } from '../records.js';
import type { AgentChannel, ChannelContext, ChannelUpdate, ScreenTurnInfo } from '../types.js';
import { CodexRollout, findRollout } from './rollout.js';

/** Codex's home: `$CODEX_HOME`, else `~/.codex`. */
export function codexHome(env: Record<string, string | undefined>): string {
  return env.CODEX_HOME || join(env.HOME ?? '', '.codex');
}

/**
 * Codex's channel (checked on codex-cli 0.171.0): its `notify` program gets one JSON argument
 * at each turn's end, `{"type":"agent-turn-complete","thread-id","turn-id","input-messages",
 * "last-assistant-message"}`, the answer exact. It fires for the side thread that names the
 * task too: only a thread with a rollout file under `$CODEX_HOME/sessions` is the user's
 * conversation. The rollout gives the turn's model and tokens.
 */
export class CodexChannel implements AgentChannel {
  readonly agent = 'codex' as const;
  private thread: string | undefined;
  private rollout: CodexRollout | null = null;
  /** Threads found to be side threads (no rollout). */
  private readonly side = new Set<string>();
  private readonly home: string;

  constructor(ctx: ChannelContext) {
    this.thread = ctx.agentSession;
    this.home = codexHome(ctx.env);
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
      this.rollout = new CodexRollout(path);
    }
    const r = turnId ? await this.rollout.turn(turnId) : undefined;
    const inputs = Array.isArray(p['input-messages'])
      ? (p['input-messages'] as unknown[]).filter((m): m is string => typeof m === 'string')
      : [];
    return {
      kind: 'turn',
      turn: {
        answer: str(p['last-assistant-message']) ?? null,
        // The thread's user messages so far: the last is this turn's.
        ...(inputs.length > 0 ? { prompt: inputs.at(-1)! } : {}),
        record: defined({
          agent: 'codex',
          via: 'codex-notify',
          session_id: thread,
          turn_id: turnId,
          model: r?.model,
          input_tokens: r?.inputTokens,
          output_tokens: r?.outputTokens,
          completed_at: r?.at ?? Date.now(),
        }) as AgentTurn,
      },
    };
  }

  expectsReport(turn: ScreenTurnInfo): boolean {
    // Its own commands (/status, /model) end no model turn: no notification comes for them.
    return !turn.interrupted && !turn.prompt.trimStart().startsWith('/');
  }

  dispose(): void {
    this.rollout = null;
  }
}

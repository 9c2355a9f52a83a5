import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { JsonlFollower } from '../jsonl-follower.js';
import { num, obj, str, time, type Json } from '../records.js';

/** What a rollout says about one turn. */
export interface RolloutTurn {
  model?: string;
  inputTokens?: number;
  outputTokens?: number;
  /** When the turn completed (epoch ms). */
  at?: number;
}

/** Day folders looked through for a thread's rollout, newest first (a session runs for days at most). */
const DAYS_SEARCHED = 7;

/**
 * Finds the rollout of a Codex thread: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread>.jsonl`.
 * Only a user's conversation has one: the side threads Codex starts itself (the one that names
 * the task) have none. Null when there is none.
 */
export async function findRollout(codexHome: string, thread: string): Promise<string | null> {
  const root = join(codexHome, 'sessions');
  const names = async (dir: string) => {
    try {
      return (await readdir(dir)).sort().reverse();
    } catch {
      return [];
    }
  };
  let days = 0;
  for (const y of await names(root))
    for (const m of await names(join(root, y)))
      for (const d of await names(join(root, y, m))) {
        const dir = join(root, y, m, d);
        const hit = (await names(dir)).find((f) => f.endsWith(`-${thread}.jsonl`));
        if (hit) return join(dir, hit);
        if (++days >= DAYS_SEARCHED) return null;
      }
  return null;
}

/**
 * A Codex rollout (checked on codex-cli 0.171.0), read as it grows: `turn_context` lines carry
 * a turn's model, `token_usage_record` its `turn_token_usage`, `event_msg`/`task_complete` its
 * end.
 */
export class CodexRollout {
  private readonly file: JsonlFollower;
  private readonly turns = new Map<string, RolloutTurn>();

  constructor(readonly path: string) {
    this.file = new JsonlFollower(path);
  }

  async turn(turnId: string): Promise<RolloutTurn | undefined> {
    for (const r of await this.file.readNew()) this.take(obj(r));
    const t = this.turns.get(turnId);
    // Kept only while they may still be asked for: the turn is reported once.
    this.turns.delete(turnId);
    return t;
  }

  private take(line: Json | undefined): void {
    const payload = obj(line?.payload);
    if (!line || !payload) return;
    const turnId = str(payload.turn_id);
    if (!turnId) return;
    const t = this.turns.get(turnId) ?? {};
    this.turns.set(turnId, t);
    if (line.type === 'turn_context') {
      const model = str(payload.model);
      if (model) t.model = model;
    } else if (line.type === 'token_usage_record') {
      const u = obj(payload.turn_token_usage);
      if (u) {
        t.inputTokens = num(u.input_tokens);
        t.outputTokens = num(u.output_tokens);
      }
    } else if (line.type === 'event_msg' && payload.type === 'task_complete') {
      t.at = time(line.timestamp);
    }
  }
}

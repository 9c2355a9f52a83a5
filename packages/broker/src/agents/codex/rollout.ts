import { open, readdir, stat } from 'node:fs/promises';
import { join } from 'node:path';
import { JsonlFollower } from '../jsonl-follower.js';
import { num, obj, str, time, type Json } from '../records.js';

/** What a rollout says about one turn. */
export interface RolloutTurn {
  turnId: string;
  /** The user's message that opened it, and when it was recorded (epoch ms). */
  prompt?: string;
  promptAt?: number;
  /** Its last agent message (`task_complete`'s `last_agent_message`): the answer, exact. */
  answer?: string | null;
  model?: string;
  inputTokens?: number;
  outputTokens?: number;
  /** When the turn completed (epoch ms). */
  at?: number;
  /** Codex wrote the turn's end (its `task_complete` event). */
  ended: boolean;
}

/** Day folders looked through for a thread's rollout, newest first (a session runs for days at most). */
const DAYS_SEARCHED = 7;
/** Turns kept per rollout (a turn just ended is asked for: the latest few suffice). */
const TURNS_KEPT = 8;
/** Bytes read from a rollout's start for its `session_meta` line (its instructions can be long). */
const META_BYTES = 64 * 1024;

/** The day folders of `$CODEX_HOME/sessions/YYYY/MM/DD`, newest first, at most DAYS_SEARCHED. */
async function dayFolders(codexHome: string): Promise<string[]> {
  const root = join(codexHome, 'sessions');
  const names = async (dir: string) => {
    try {
      return (await readdir(dir)).sort().reverse();
    } catch {
      return [];
    }
  };
  const out: string[] = [];
  for (const y of await names(root))
    for (const m of await names(join(root, y)))
      for (const d of await names(join(root, y, m))) {
        out.push(join(root, y, m, d));
        if (out.length >= DAYS_SEARCHED) return out;
      }
  return out;
}

/**
 * Finds the rollout of a Codex thread: `$CODEX_HOME/sessions/YYYY/MM/DD/rollout-<time>-<thread>.jsonl`.
 * Only a user's conversation has one: the side threads Codex starts itself (the one that names
 * the task) have none. Null when there is none.
 */
export async function findRollout(codexHome: string, thread: string): Promise<string | null> {
  for (const dir of await dayFolders(codexHome)) {
    let files: string[] = [];
    try {
      files = await readdir(dir);
    } catch {
      continue;
    }
    const hit = files.find((f) => f.endsWith(`-${thread}.jsonl`));
    if (hit) return join(dir, hit);
  }
  return null;
}

/** A rollout's thread and folder, from its first line (`session_meta`). */
export async function rolloutMeta(path: string): Promise<{ id?: string; cwd?: string } | null> {
  let fh;
  try {
    fh = await open(path, 'r');
  } catch {
    return null;
  }
  try {
    const buf = Buffer.alloc(META_BYTES);
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    const text = buf.subarray(0, bytesRead).toString('utf8');
    const nl = text.indexOf('\n');
    if (nl < 0) return null;
    const line = obj(JSON.parse(text.slice(0, nl)) as unknown);
    const payload = obj(line?.payload);
    if (line?.type !== 'session_meta' || !payload) return null;
    return { id: str(payload.id), cwd: str(payload.cwd) };
  } catch {
    return null;
  } finally {
    await fh.close();
  }
}

/**
 * How much earlier than `since` a file's modification time may be and still count as written
 * since: the kernel stamps files from a clock it updates once per tick (up to 10 ms), so a file
 * written just after `Date.now()` was read can carry a time before it (seen in a test that
 * wrote the rollout right after the channel started). Ten ticks.
 */
const FILE_CLOCK_SLACK_MS = 100;

/**
 * The rollouts of conversations in `cwd` written to since `since` (epoch ms): where a session's
 * own rollout is looked for when its thread is not known (a new session's first turns).
 */
export async function recentRollouts(
  codexHome: string,
  cwd: string,
  since: number,
): Promise<{ path: string; thread: string | undefined }[]> {
  const out: { path: string; thread: string | undefined }[] = [];
  // Today's folder and the one before (a session started before midnight).
  for (const dir of (await dayFolders(codexHome)).slice(0, 2)) {
    let files: string[] = [];
    try {
      files = await readdir(dir);
    } catch {
      continue;
    }
    for (const f of files) {
      if (!f.startsWith('rollout-') || !f.endsWith('.jsonl')) continue;
      const path = join(dir, f);
      try {
        if ((await stat(path)).mtimeMs < since - FILE_CLOCK_SLACK_MS) continue;
      } catch {
        continue;
      }
      const meta = await rolloutMeta(path);
      if (meta?.cwd === cwd) out.push({ path, thread: meta.id });
    }
  }
  return out;
}

/**
 * The user's message a rollout line records, exactly as typed: 0.171's `item_completed` of a
 * `UserMessage` item (its text parts), older versions' `user_message` event. Undefined for any
 * other line.
 */
function userMessage(line: Json, payload: Json): string | undefined {
  if (line.type !== 'event_msg') return undefined;
  if (payload.type === 'user_message') return str(payload.message) ?? '';
  const item = obj(payload.item);
  if (payload.type !== 'item_completed' || item?.type !== 'UserMessage') return undefined;
  const parts = Array.isArray(item.content) ? item.content : [];
  return parts
    .map((c) => obj(c))
    .filter((c) => c?.type === 'text')
    .map((c) => str(c!.text) ?? '')
    .join('\n');
}

/**
 * A Codex rollout (checked on codex-cli 0.171.0), read as it grows: `task_started` opens a turn,
 * the `item_completed` of its `UserMessage` is its prompt, `turn_context` carries its model, `token_usage_record` its
 * `turn_token_usage`, `task_complete` its end with the last agent message.
 */
export class CodexRollout {
  private readonly file: JsonlFollower;
  private readonly turns = new Map<string, RolloutTurn>();
  /** The turn the latest `task_started` opened (a `user_message` names no turn). */
  private current: RolloutTurn | undefined;

  constructor(readonly path: string) {
    this.file = new JsonlFollower(path);
  }

  /** The turn `turnId` as recorded so far. */
  async turn(turnId: string): Promise<RolloutTurn | undefined> {
    await this.readNew();
    return this.turns.get(turnId);
  }

  /** The latest turn as recorded so far (undefined: none yet). */
  async latest(): Promise<RolloutTurn | undefined> {
    await this.readNew();
    return this.current;
  }

  private async readNew(): Promise<void> {
    for (const r of await this.file.readNew()) this.take(obj(r));
  }

  private get(turnId: string): RolloutTurn {
    let t = this.turns.get(turnId);
    if (!t) {
      t = { turnId, ended: false };
      this.turns.set(turnId, t);
      for (const old of this.turns.keys()) {
        if (this.turns.size <= TURNS_KEPT) break;
        this.turns.delete(old);
      }
    }
    return t;
  }

  private take(line: Json | undefined): void {
    const payload = obj(line?.payload);
    if (!line || !payload) return;
    const turnId = str(payload.turn_id);
    const prompt = userMessage(line, payload);
    if (prompt !== undefined) {
      const t = turnId ? this.get(turnId) : this.current;
      // The turn's first message is its prompt (one sent while it runs steers it).
      if (t && t.prompt === undefined) {
        t.prompt = prompt;
        t.promptAt = time(line.timestamp);
      }
      return;
    }
    if (!turnId) return;
    const t = this.get(turnId);
    if (line.type === 'turn_context') {
      const model = str(payload.model);
      if (model) t.model = model;
    } else if (line.type === 'token_usage_record') {
      const u = obj(payload.turn_token_usage);
      if (u) {
        t.inputTokens = num(u.input_tokens);
        t.outputTokens = num(u.output_tokens);
      }
    } else if (line.type === 'event_msg' && payload.type === 'task_started') {
      this.current = t;
    } else if (line.type === 'event_msg' && payload.type === 'task_complete') {
      t.at = time(line.timestamp);
      t.answer = str(payload.last_agent_message) ?? null;
      t.ended = true;
      this.current = t;
    }
  }
}

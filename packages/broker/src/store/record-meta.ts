import { z } from 'zod';
import { AgentTurnSchema, type AgentTurn } from '@clippy/protocol';
import type { SessionUsage } from '../turn-ring/turn-ring.js';
import { DEFAULT_COLS, DEFAULT_PRESET, DEFAULT_ROWS } from '../constants.js';
import type { WorktreeRecord } from '../worktrees/session-worktree.js';

/**
 * The small fields of a stored record (its JSON meta), and how they are checked when read
 * back: a record's checksum says its bytes are the ones written, not that what was written is
 * well-formed (an older version, a bug, a hand edit). A field of the wrong type costs that
 * field — it reads as its default, a session's name as its ID — and only what locates the
 * record's data (its session, its seq, its blob lengths) makes the record unusable.
 */

/** A session as it was spawned: what `ls -a` shows of it after a restart. */
export interface SessionMeta {
  k: 'session';
  id: string;
  name: string;
  command: string;
  args: string[];
  cwd: string;
  preset: string;
  /** Epoch ms; 0 when unknown (then the session's first turn's time is used). */
  created_at: number;
  cols: number;
  rows: number;
  /** Its git worktree (`new --worktree`): where a revived session starts again. */
  worktree?: WorktreeRecord;
}

/**
 * A completed turn; `cl`/`tl` are the byte lengths of its content and text blobs. A turn whose
 * text is its agent's own answer (`src: 'agent'`) has a third blob, the screen's text (`stl`).
 */
export interface TurnRecordMeta {
  k: 'turn';
  session: string;
  seq: number;
  timestamp: number;
  interrupted: boolean;
  truncated: boolean;
  duration_ms: number;
  prompt: string;
  cl: number;
  tl: number;
  src?: 'agent';
  stl?: number;
  /** The agent's own record of the turn, and the session's usage totals after it. */
  agent?: AgentTurn;
  usage?: SessionUsage;
  disagreement?: string;
}

/** The session's process ended; `sl`: the final screen's length (a blob), 0 when none. */
export interface ExitMeta {
  k: 'exit';
  session: string;
  exited_at: number;
  exit_code: number | null;
  exit_signal: string | null;
  cols: number;
  rows: number;
  sl: number;
}

/** `clippy rm`: the session is forgotten (its turns are no longer restored or searched). */
export interface RemoveMeta {
  k: 'remove';
  session: string;
  at: number;
}

export type RecordMeta = SessionMeta | TurnRecordMeta | ExitMeta | RemoveMeta;

/** A record of a kind this version does not know (a newer one wrote it): kept, not applied. */
export interface OtherMeta {
  k: 'other';
}

/** Command shown for a session rebuilt from its turns (its own record was lost). */
export const UNKNOWN_COMMAND = '?';

/** Largest terminal size taken from a stored record; beyond it the default is used. */
const MAX_TERMINAL_CELLS = 10_000;

/** What session names and IDs may not hold (as `spawn` refuses): ':' separates turn IDs. */
const BAD_NAME = /[:\s\p{Cc}]/u;
const ID = z
  .string()
  .min(1)
  .max(64)
  .refine((s) => !BAD_NAME.test(s));
const TIME = z.number().nonnegative();
const COUNT = z.number().int().nonnegative();
const CELLS = z.number().int().min(1).max(MAX_TERMINAL_CELLS);

/** A session's worktree as stored; a damaged one reads as none (the session is listed without). */
const WorktreeSchema = z.object({
  path: z.string().min(1),
  branch: z.string().min(1),
  base: z.string().min(1),
  base_ref: z.string().min(1).nullable(),
  repo: z.string().min(1),
  object_format: z.enum(['sha1', 'sha256']).catch('sha1'),
});

// `.catch(x)`: a bad value reads as x. Fields without it are the record's identity.
const SessionSchema = z.object({
  id: ID,
  name: ID.optional().catch(undefined),
  command: z.string().catch(UNKNOWN_COMMAND),
  args: z.array(z.string()).catch([]),
  cwd: z.string().catch(''),
  preset: z.string().catch(DEFAULT_PRESET),
  created_at: TIME.catch(0),
  cols: CELLS.catch(DEFAULT_COLS),
  rows: CELLS.catch(DEFAULT_ROWS),
  worktree: WorktreeSchema.optional().catch(undefined),
});
const TurnSchema = z.object({
  session: ID,
  seq: z.number().int().positive(),
  timestamp: TIME.catch(0),
  interrupted: z.boolean().catch(false),
  truncated: z.boolean().catch(false),
  duration_ms: TIME.catch(0),
  prompt: z.string().catch(''),
  cl: COUNT,
  tl: COUNT,
  src: z.literal('agent').optional().catch(undefined),
  stl: COUNT.optional(),
  agent: AgentTurnSchema.optional().catch(undefined),
  usage: z
    .object({
      input_tokens: COUNT.optional(),
      output_tokens: COUNT.optional(),
      cost_usd: z.number().nonnegative().optional(),
      cost_unknown: z.string().optional(),
    })
    .optional()
    .catch(undefined),
  disagreement: z.string().optional().catch(undefined),
});
const ExitSchema = z.object({
  session: ID,
  exited_at: TIME.catch(0),
  exit_code: z.number().int().nullable().catch(null),
  exit_signal: z.string().nullable().catch(null),
  cols: CELLS.catch(DEFAULT_COLS),
  rows: CELLS.catch(DEFAULT_ROWS),
  sl: COUNT,
});
const RemoveSchema = z.object({ session: ID, at: TIME.catch(0) });

/**
 * The meta of a sound record, checked field by field, or null when the record cannot be used
 * (not an object, no session, no seq, blob lengths that do not add up to `blobBytes`).
 */
export function checkMeta(raw: unknown, blobBytes: number): RecordMeta | OtherMeta | null {
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) return null;
  const kind = (raw as { k?: unknown }).k;
  switch (kind) {
    case 'session': {
      const r = SessionSchema.safeParse(raw);
      if (!r.success || blobBytes !== 0) return null;
      return { k: 'session', ...r.data, name: r.data.name ?? r.data.id };
    }
    case 'turn': {
      const r = TurnSchema.safeParse(raw);
      if (!r.success || r.data.cl + r.data.tl + (r.data.stl ?? 0) !== blobBytes) return null;
      const { src, stl, agent, usage, disagreement, ...rest } = r.data;
      // Absent fields stay absent (a turn without them reads as the screen's).
      return {
        k: 'turn',
        ...rest,
        ...(src ? { src } : {}),
        ...(stl !== undefined ? { stl } : {}),
        ...(agent ? { agent: agent as AgentTurn } : {}),
        ...(usage ? { usage } : {}),
        ...(disagreement ? { disagreement } : {}),
      };
    }
    case 'exit': {
      const r = ExitSchema.safeParse(raw);
      if (!r.success || r.data.sl !== blobBytes) return null;
      return { k: 'exit', ...r.data };
    }
    case 'remove': {
      const r = RemoveSchema.safeParse(raw);
      return r.success && blobBytes === 0 ? { k: 'remove', ...r.data } : null;
    }
    default:
      return typeof kind === 'string' ? { k: 'other' } : null;
  }
}

/** The record of a session whose own record was lost: named by its ID, the rest unknown. */
export function rebuiltSession(id: string, seenAt: number): SessionMeta {
  return {
    k: 'session',
    id,
    name: id,
    command: UNKNOWN_COMMAND,
    args: [],
    cwd: '',
    preset: DEFAULT_PRESET,
    created_at: seenAt,
    cols: DEFAULT_COLS,
    rows: DEFAULT_ROWS,
  };
}

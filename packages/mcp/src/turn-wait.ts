import { BrokerError, type SessionInfo, type Turn } from '@clippy/protocol';
import type { McpContext } from './context.js';
import { ToolError, toolErrorOf } from './errors.js';

/** How long ask and wait wait for a turn unless told: an agent's long turn, not for ever. */
export const DEFAULT_TIMEOUT_S = 600;
/** The longest wait a call may ask for (an hour): a tool call is not a background job. */
export const MAX_TIMEOUT_S = 3_600;

/** `prompt` as the detector followed it, without whitespace (wraps, CRs and indents differ). */
const compact = (s: string): string => s.replace(/\s+/gu, '');

/**
 * Whether a turn answers `text`: its input is the text (the daemon keeps an input's first 4095
 * characters and marks the cut with `…`). A person typing in a terminal, or another client,
 * makes turns of their own meanwhile.
 */
export function answers(turn: Pick<Turn, 'prompt'>, text: string): boolean {
  const got = compact(turn.prompt.endsWith('…') ? turn.prompt.slice(0, -1) : turn.prompt);
  const want = compact(text);
  return got !== '' && (got === want || want.startsWith(got));
}

/** The sequence number of the session's latest stored turn (0: none yet). */
export async function latestSeq(ctx: McpContext, session: string): Promise<number> {
  const { turns } = await ctx.daemon.request('list_turns', { session, limit: 1 });
  return turns[0]?.seq ?? 0;
}

export interface TurnWait {
  info: SessionInfo;
  /** The turn before the one waited for (its sequence number; 0: before the first). */
  after: number;
  /** Epoch ms when the wait gives up. */
  until: number;
  /** How long the call said to wait, for its message. */
  seconds: number;
  /** Only a turn whose input is this text (ask); any turn otherwise (wait). */
  input?: string;
  signal: AbortSignal;
}

/**
 * The first turn of the session after `after` (whose input is `input`, when given): stored
 * already, or the next to complete. A timeout leaves nothing half read: the turn, when it comes,
 * is stored whole, and the message says how to get it.
 */
export async function waitForTurn(ctx: McpContext, w: TurnWait): Promise<Turn> {
  let after = w.after;
  const others: string[] = [];
  for (;;) {
    const left = w.until - Date.now();
    if (left <= 0 || w.signal.aborted) throw timedOut(w, after, others);
    let turn: Turn;
    try {
      turn = (
        await abortable(
          ctx.daemon.request(
            'wait_turn',
            { session: w.info.session, after: `${w.info.session}:${after}`, timeout_ms: left },
            // The daemon times the wait; the connection waits as long as it does.
            { timeoutMs: 0 },
          ),
          w.signal,
        )
      ).turn;
    } catch (err) {
      if (err instanceof BrokerError && err.code === 'timeout') throw timedOut(w, after, others);
      if (err instanceof BrokerError && err.code === 'session_exited')
        throw new ToolError(
          `session '${w.info.name}' exited before its turn after ${w.info.name}:${w.after} completed${others.length ? ` (it completed ${others.join(', ')}, none of them the answer to this text)` : ''}`,
          'session_exited',
        );
      throw toolErrorOf(err);
    }
    if (w.input === undefined || answers(turn, w.input)) return turn;
    others.push(turn.turn_id);
    after = turn.seq;
  }
}

/** The wait ran out: what was waited for, and how to get it when it comes. */
function timedOut(w: TurnWait, after: number, others: string[]): ToolError {
  const before = `${w.info.name}:${w.after}`;
  const next = `${w.info.name}:${after}`;
  const what =
    w.input === undefined
      ? `no turn of '${w.info.name}' completed after ${before}`
      : `'${w.info.name}' has not answered yet: no turn after ${before} answers this text`;
  const seen = others.length ? ` (turns of others completed meanwhile: ${others.join(', ')})` : '';
  return new ToolError(
    `timed out after ${w.seconds} s: ${what}${seen}. Nothing is lost: the answer is stored whole when it completes; wait with session "${w.info.name}" and after "${next}" returns it.`,
    'timeout',
  );
}

/** `promise`, or a rejection when `signal` aborts first (the caller cancelled the tool call). */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(new BrokerError('timeout', 'cancelled'));
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(new BrokerError('timeout', 'cancelled'));
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e instanceof Error ? e : new Error(String(e)));
      },
    );
  });
}

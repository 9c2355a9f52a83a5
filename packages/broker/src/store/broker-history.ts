import { homedir } from 'node:os';
import { join } from 'node:path';
import type { Logger } from '../log.js';
import type { Session, SessionParams } from '../sessions/session.js';
import type { SessionTable } from '../sessions/session-table.js';
import type { NewSessionParams } from '../handlers/context.js';
import type { TurnConfig } from '../turn-config/turn-config.js';
import type { SessionUsage, StoredTurn } from '../turn-ring/turn-ring.js';
import { storedTurn } from './stored-turn.js';
import { TurnStore, type PersistedSession } from './turn-store.js';

/** Longest shutdown waits for the exit records of the sessions it ended (final screen included). */
export const EXIT_RECORD_WAIT_MS = 1_000;

/** `$XDG_STATE_HOME/clippy/history` (default `~/.local/state/clippy/history`). */
export function historyDir(env: Record<string, string | undefined>): string {
  const state = env.XDG_STATE_HOME || join(env.HOME || homedir(), '.local', 'state');
  return join(state, 'clippy', 'history');
}

/** The history as the daemon opened it: the store, or why there is none. */
export interface OpenedHistory {
  store: TurnStore | null;
  /** Why the history is unavailable (null when it opened). */
  unavailable: string | null;
}

/**
 * Opens the turn history at start, with the retention of the settings read at start (waiting a
 * bounded time for the lock of a daemon still exiting). A history that cannot be opened leaves
 * the daemon without persistence: it starts anyway, says why in the log, and keeps the reason
 * for `daemon status`, `ls` and a refused `new --persist`.
 */
export function openHistory(
  env: Record<string, string | undefined>,
  settings: TurnConfig,
  log: Logger,
): OpenedHistory {
  const maxBytes = settings.historyMaxBytes;
  const maxAgeMs = settings.historyMaxAgeMs;
  const lockWaitMs = settings.historyLockWaitMs;
  const dir = historyDir(env);
  const started = performance.now();
  try {
    const store = TurnStore.open({ dir, log, maxBytes, maxAgeMs, lockWaitMs });
    const status = store.status();
    if (status.sessions > 0)
      log.info(
        {
          dir,
          sessions: status.sessions,
          turns: status.turns,
          ms: Math.round(performance.now() - started),
        },
        'history: opened',
      );
    return { store, unavailable: null };
  } catch (err) {
    log.error({ err, dir }, 'history: cannot be opened; persistence is off for this run');
    return { store: null, unavailable: (err as Error).message };
  }
}

type RestoredParams = Omit<NewSessionParams, 'turns'> & {
  turns: NewSessionParams['turns'] | null;
  restored: NonNullable<SessionParams['restored']>;
};

/**
 * Lists every persisted session as exited (its process did not survive the daemon; nothing is
 * re-attached), with its newest turns back in its ring so that `turns`, `show` and `relay` work.
 */
export function restoreSessions(
  history: TurnStore,
  table: Pick<SessionTable, 'resolve'>,
  make: (params: RestoredParams) => Session,
  config: TurnConfig,
  log: Logger,
): void {
  for (const p of history.persistedSessions()) {
    if (table.resolve(p.meta.id)) continue;
    // An exit older than the session's newest turn ended an earlier life: it was revived since.
    const exit =
      p.exit && p.exit.exited_at >= (p.turns.at(-1)?.meta.timestamp ?? 0) ? p.exit : undefined;
    try {
      const session = make({
        id: p.meta.id,
        name: p.meta.name,
        kind: 'pty',
        command: p.meta.command,
        args: p.meta.args,
        cwd: p.meta.cwd,
        cols: p.meta.cols,
        rows: p.meta.rows,
        preset: p.meta.preset,
        pattern: undefined,
        pty: null,
        pid: 0,
        persisted: true,
        worktree: p.meta.worktree,
        restored: {
          createdAt: p.meta.created_at,
          // Without an exit record the daemon died with the session running: its last sign of life.
          exitedAt: exit?.exited_at ?? lastSeen(p),
          exitCode: exit?.exit_code ?? null,
          exitSignal: exit?.exit_signal ?? null,
          // No exit record: it ran when the daemon ended, and ended with it (the reaper).
          endedWithDaemon: !exit,
        },
        turns: { preset: null, config },
      });
      const { turns, usage } = ringTurns(history, p, config.turnRingDepth);
      session.turns?.ring.restore(turns, p.turns.at(-1)?.meta.seq ?? 0, usage);
      void history.readExitScreen(p).then(
        (screen) => {
          if (screen) session.output.restore(Buffer.from(screen));
        },
        () => {},
      );
    } catch (err) {
      log.warn({ err, session: p.meta.id }, 'history: a persisted session could not be restored');
    }
  }
}

function lastSeen(p: PersistedSession): number {
  return Math.max(p.meta.created_at, p.turns.at(-1)?.meta.timestamp ?? 0);
}

/**
 * The session's newest turns, read back whole (up to the ring's depth), and its usage totals
 * (written with its newest turn that had them).
 */
function ringTurns(
  history: TurnStore,
  p: PersistedSession,
  depth: number,
): { turns: StoredTurn[]; usage: SessionUsage | undefined } {
  let usage: SessionUsage | undefined;
  const turns = p.turns.slice(-depth).map((ref) => {
    const read = history.readTurnSync(ref);
    if (read.meta.usage) usage = read.meta.usage;
    return storedTurn(read);
  });
  return { turns, usage };
}

/** Records a persisted session's exit with its final screen (scrollback included). */
export async function persistExit(
  history: TurnStore,
  session: Session,
  log: Logger,
): Promise<void> {
  let screen: string | null = null;
  try {
    screen = await session.output.snapshot();
  } catch (err) {
    log.debug({ err, session: session.id }, 'history: no final screen');
  }
  await history.persistExit(
    {
      session: session.id,
      exited_at: session.exitedAt ?? Date.now(),
      exit_code: session.exitCode,
      exit_signal: session.exitSignal,
      cols: session.cols,
      rows: session.rows,
    },
    screen,
  );
}

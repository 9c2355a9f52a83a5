import type { EventName } from '@clippy/protocol';
import { capLines, diffPatchLines, diffStatLines } from '@clippy/system/git';
import { HandlerError } from '../errors.js';
import type { Logger } from '../log.js';
import type { TemplateDiff } from '../relay/routes/templates.js';
import type { Session } from '../sessions/session.js';
import {
  createWorktree,
  discardWorktree,
  type CreateWorktree,
  type CreatedWorktree,
} from './create-worktree.js';
import { worktreeDiff, type DiffQuery, type WorktreeDiff } from './diff.js';
import { gitEnvironment } from './git.js';
import { removeWorktree, type RemovedWorktree } from './remove-worktree.js';
import type { SessionWorktree, WorktreeRecord } from './session-worktree.js';

/**
 * How long a session's counted changes are shown before a listing counts them again. They are
 * counted anyway when its turn ends, when it exits and at each `diff`: this bounds how old they
 * get while an agent works through a long turn, or a person edits its files.
 */
export const CHANGES_FRESH_MS = 5_000;
/** Longest `list_sessions` waits for counts under way; past it, the last ones are shown. */
export const CHANGES_WAIT_MS = 500;
/** Lines of `{{diff}}` a route injects: a review's worth; past it, `… N more lines`. */
export const TEMPLATE_DIFF_MAX_LINES = 1_000;
/** Files listed by `{{diff_stat}}` (its summary line comes after them). */
export const TEMPLATE_DIFF_STAT_MAX_FILES = 100;

export interface WorktreesDeps {
  /** The daemon's environment (git's, without what would point it elsewhere). */
  env: Record<string, string | undefined>;
  log: Logger;
}

/**
 * Sessions' worktrees: made for `spawn`, read for `diff` and routes' templates, counted for
 * `list_sessions` (off the output path: git runs as its own process, at most one count per
 * session at a time), and removed with their session only when no work would be lost. clippy
 * never deletes a branch and never touches the user's own working tree or index.
 */
export class Worktrees {
  private readonly gitEnv: Record<string, string>;
  private disposed = false;

  constructor(private readonly deps: WorktreesDeps) {
    this.gitEnv = gitEnvironment(deps.env);
  }

  create(request: Omit<CreateWorktree, 'env' | 'daemonEnv'>): Promise<CreatedWorktree> {
    return createWorktree({ ...request, env: this.gitEnv, daemonEnv: this.deps.env });
  }

  /** Undoes a worktree made for a session that did not start (nothing was done in it). */
  async discard(record: WorktreeRecord): Promise<void> {
    try {
      await discardWorktree(record, this.gitEnv);
    } catch (err) {
      this.deps.log.warn({ err, worktree: record.path }, 'worktree: could not undo');
    }
  }

  /** The session's worktree; `no_worktree` for a session that runs in none. */
  worktreeOf(session: Session): SessionWorktree {
    if (!session.worktree) {
      throw new HandlerError(
        'no_worktree',
        `session '${session.name}' runs in no worktree of its own (clippy new --worktree makes one)`,
      );
    }
    return session.worktree;
  }

  /** The session's changes against its base (and, by the way, fresh counts for `ls`). */
  async diff(
    session: Session,
    query: DiffQuery,
  ): Promise<WorktreeDiff & { worktree: SessionWorktree }> {
    const worktree = this.worktreeOf(session);
    const diff = await worktreeDiff(worktree.record, query, this.gitEnv);
    if (!query.paths) {
      worktree.changes = { ...diff.totals, at: Date.now() };
      worktree.stale = false;
    }
    return { ...diff, worktree };
  }

  /** Counts a session's changes again, unless a count is under way (then that one). */
  count(session: Session): Promise<void> {
    const worktree = session.worktree;
    if (!worktree) return Promise.resolve();
    worktree.counting ??= (async () => {
      try {
        worktree.stale = false;
        const { totals } = await worktreeDiff(
          worktree.record,
          { detail: 'files', base: false },
          this.gitEnv,
        );
        worktree.changes = { ...totals, at: Date.now() };
      } catch (err) {
        // A worktree removed by hand, a repository gone: nothing to count.
        worktree.changes = null;
        this.deps.log.debug({ err, session: session.id }, 'worktree: changes not counted');
      } finally {
        worktree.counting = null;
      }
    })();
    return worktree.counting;
  }

  /**
   * Counts again the changes of these sessions that are stale or older than CHANGES_FRESH_MS
   * (and waits for counts under way), at most `waitMs`: the last counts are shown past it.
   */
  async freshen(sessions: Session[], waitMs = CHANGES_WAIT_MS): Promise<void> {
    const now = Date.now();
    const counts = sessions
      .filter(
        (s) =>
          s.worktree &&
          (s.worktree.stale ||
            s.worktree.counting ||
            !s.worktree.changes ||
            now - s.worktree.changes.at > CHANGES_FRESH_MS),
      )
      .map((s) => this.count(s));
    if (counts.length === 0) return;
    let timer: NodeJS.Timeout | undefined;
    await Promise.race([
      Promise.all(counts),
      new Promise<void>((resolve) => {
        timer = setTimeout(resolve, waitMs);
      }),
    ]);
    clearTimeout(timer);
  }

  /** A turn or an exit: the session's files may have changed; count them while nobody waits. */
  onEvent(event: EventName, session: Session): void {
    if (!session.worktree || this.disposed) return;
    if (event !== 'turn_completed' && event !== 'session_exited') return;
    session.worktree.stale = true;
    void this.count(session);
  }

  /**
   * The session's diff as routes' templates show it, capped (`… N more lines`); an error in
   * words rather than no message: the route still fires, and the target reads why.
   */
  async templateDiff(session: Session): Promise<TemplateDiff> {
    try {
      const d = await this.diff(session, { detail: 'patch', base: false });
      const hint = ` (clippy diff ${session.name} shows them all)`;
      const stat = diffStatLines(d.files, d.totals);
      const summary = stat.pop();
      return {
        diff: capLines(diffPatchLines(d.files), TEMPLATE_DIFF_MAX_LINES, hint).join('\n'),
        diff_stat: [
          ...capLines(stat, TEMPLATE_DIFF_STAT_MAX_FILES, hint),
          ...(summary ? [summary] : []),
        ].join('\n'),
      };
    } catch (err) {
      const words = `(the diff of ${session.name} could not be read: ${(err as Error).message})`;
      return { diff: words, diff_stat: words };
    }
  }

  /** Removes an exited session's worktree, keeping its branch (remove-worktree.ts). */
  async remove(session: Session, force: boolean): Promise<RemovedWorktree> {
    const { record } = this.worktreeOf(session);
    const removed = await removeWorktree(record, session.name, force, this.gitEnv);
    this.deps.log.info(
      { session: session.id, worktree: record.path, branch: record.branch, lost: removed.lost },
      'worktree removed',
    );
    return removed;
  }

  /** No new counts start (the daemon stops); counts under way end on their own. */
  dispose(): void {
    this.disposed = true;
  }
}

import { FileChanges } from './file-changes.js';

/**
 * How often a record that cannot be watched yet (its folder is made with its first write) is
 * read meanwhile: soon enough that a turn's end is not held up by it, rare enough to cost nothing.
 */
export const RECORD_POLL_MS = 100;

/**
 * Reads an agent's record (a JSONL transcript or events file at `path`) until `settled` says
 * it holds what the caller waits for, at most `waitMs`, and returns the last read. An agent
 * reports a turn's end (its Stop hook) or the screen completes it a moment before the agent has
 * written the turn to its record: the wait ends as soon as a write makes it settle, woken by
 * the file's changes (inotify), polled every RECORD_POLL_MS while the file cannot be watched.
 * A change during a read is never lost: it is counted, and the next wait does not sleep.
 * `signal` ends the wait early (the caller no longer needs it): the last read is returned.
 */
export async function readUntil<T>(
  path: string,
  read: () => Promise<T>,
  settled: (t: T) => boolean,
  waitMs: number,
  signal?: AbortSignal,
): Promise<T> {
  let t = await read();
  if (settled(t) || signal?.aborted) return t;
  const deadline = Date.now() + waitMs;
  let changes = 0;
  let wake: (() => void) | null = null;
  const files = new FileChanges(path, () => {
    changes++;
    wake?.();
  });
  const abort = () => wake?.();
  signal?.addEventListener('abort', abort);
  try {
    for (;;) {
      // Counted before the read: a line written while it reads is a change still to come.
      const seen = changes;
      t = await read();
      const left = deadline - Date.now();
      if (settled(t) || left <= 0 || signal?.aborted) return t;
      if (changes === seen)
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, files.watching ? left : Math.min(left, RECORD_POLL_MS));
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      wake = null;
      if (signal?.aborted) return t;
    }
  } finally {
    signal?.removeEventListener('abort', abort);
    files.dispose();
  }
}

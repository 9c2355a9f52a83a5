import { watch, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';

/**
 * Calls `changed` whenever the file at `path` changes (the agent appended to its record), from
 * the kernel's file events (inotify on Linux): a turn's recorded end is seen as it is written,
 * with no polling. A file not created yet is watched for in its folder. Nothing is watched
 * (and `changed` is never called) when neither exists: the caller reads at the screen's end.
 */
export class FileChanges {
  private watcher: FSWatcher | null = null;

  constructor(
    readonly path: string,
    changed: () => void,
  ) {
    const name = basename(path);
    try {
      this.watcher = watch(path, { persistent: false }, () => changed());
    } catch {
      try {
        this.watcher = watch(dirname(path), { persistent: false }, (_event, file) => {
          if (file === null || file === name) changed();
        });
      } catch {
        this.watcher = null;
      }
    }
    // A watch that fails later (the folder removed) just stops: the screen's end still reads.
    this.watcher?.on('error', () => this.dispose());
  }

  /** Whether the kernel reports this file's changes. */
  get watching(): boolean {
    return this.watcher !== null;
  }

  dispose(): void {
    this.watcher?.close();
    this.watcher = null;
  }
}

import type { ChildProcess } from 'node:child_process';
import type * as vscode from 'vscode';

/** The CLI processes the extension runs (navigator runs): stopped, by PID, when it stops. */
export class Processes implements vscode.Disposable {
  private readonly running = new Set<ChildProcess>();

  /** Tracks a child until it exits. */
  add(child: ChildProcess): void {
    this.running.add(child);
    child.once('exit', () => this.running.delete(child));
  }

  dispose(): void {
    // SIGINT: a navigator run deregisters from the daemon on it, as on Ctrl-C.
    for (const child of this.running) {
      try {
        if (child.pid !== undefined) process.kill(child.pid, 'SIGINT');
      } catch {
        // It exited meanwhile.
      }
    }
    this.running.clear();
  }
}

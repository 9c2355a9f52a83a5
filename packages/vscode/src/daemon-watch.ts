import fs from 'node:fs';
import path from 'node:path';
import type * as vscode from 'vscode';
import type { DaemonLink } from './daemon-link.js';
import type { SessionModel } from './session-model.js';

/**
 * A daemon's socket can be there a moment before it is listening (bind, then listen): one more
 * try after this pause, should the first find nobody.
 */
const SOCKET_SETTLE_MS = 250;

/**
 * While the model is offline, watches (inotify, not polling) the directory where the daemon's
 * socket appears, and connects when it does: a daemon started later, e.g. by `clippy new` in a
 * shell, shows in the view without a click. Never starts a daemon itself.
 */
export class DaemonWatch implements vscode.Disposable {
  private watcher: fs.FSWatcher | null = null;
  private retry: NodeJS.Timeout | null = null;
  private readonly off: vscode.Disposable;

  constructor(
    private readonly model: SessionModel,
    private readonly link: DaemonLink,
  ) {
    this.off = model.onDidChange(() => this.update());
    this.update();
  }

  private update(): void {
    if (this.model.status.kind === 'offline') this.watch();
    else this.stop();
  }

  private watch(): void {
    if (this.watcher) return;
    let socket: string;
    try {
      socket = this.link.socketPath();
    } catch {
      return; // No runtime directory: nowhere a daemon could appear.
    }
    // The nearest directory that exists on the way to the socket (clippy/ may not exist yet).
    let dir = path.dirname(socket);
    while (!fs.existsSync(dir)) {
      const parent = path.dirname(dir);
      if (parent === dir) return;
      dir = parent;
    }
    try {
      this.watcher = fs.watch(dir, () => this.changed(socket, dir));
      this.watcher.on('error', () => this.stop());
    } catch {
      this.watcher = null;
    }
  }

  private changed(socket: string, watched: string): void {
    if (fs.existsSync(socket)) {
      this.stop();
      void this.model.connect(false).then(() => {
        if (this.model.status.kind !== 'offline' || this.retry) return;
        this.retry = setTimeout(() => {
          this.retry = null;
          void this.model.connect(false);
        }, SOCKET_SETTLE_MS);
      });
    } else if (watched !== path.dirname(socket)) {
      // A directory on the way appeared: watch closer to the socket.
      this.stop();
      this.watch();
    }
  }

  private stop(): void {
    this.watcher?.close();
    this.watcher = null;
  }

  dispose(): void {
    this.off.dispose();
    this.stop();
    if (this.retry) clearTimeout(this.retry);
  }
}

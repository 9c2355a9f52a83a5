import type { Worker } from 'node:worker_threads';
import { startWorker } from '../worker-start.js';
import type { FromScreenWorker, ToScreenWorker } from './screen-protocol.js';

/** The screen worker's module beside this file (`.js` built, `.ts` in sources). */
const SCREEN_WORKER = new URL('./screen-worker', import.meta.url);

/** What the host routes worker messages to: one per session screen. */
export interface ScreenClient {
  onWorkerMessage(message: FromScreenWorker): void;
  /** The worker died: pending replays resolve empty, the screen goes inert. */
  onWorkerLost(): void;
}

/**
 * Owns the one screen worker thread shared by every session's screen: started with the first
 * screen, stopped with the last (so an idle process holds no thread), and never keeping the
 * process alive by itself. One thread, not one per session: 100 sessions must not cost 100
 * V8 isolates.
 */
class ScreenHost {
  private worker: Worker | null = null;
  private readonly clients = new Map<number, ScreenClient>();
  private nextId = 1;

  register(client: ScreenClient): number {
    const id = this.nextId++;
    this.clients.set(id, client);
    this.ensureWorker();
    return id;
  }

  unregister(id: number): void {
    if (!this.clients.delete(id)) return;
    this.send({ op: 'dispose', id });
    if (this.clients.size === 0 && this.worker) {
      const w = this.worker;
      this.worker = null;
      void w.terminate();
    }
  }

  send(message: ToScreenWorker, transfer?: ArrayBuffer[]): void {
    this.worker?.postMessage(message, transfer);
  }

  private ensureWorker(): void {
    if (this.worker) return;
    const worker = startWorker(SCREEN_WORKER);
    worker.unref();
    worker.on('message', (m: FromScreenWorker) => this.clients.get(m.id)?.onWorkerMessage(m));
    const lost = () => {
      if (this.worker !== worker) return;
      this.worker = null;
      const clients = [...this.clients.values()];
      this.clients.clear();
      for (const c of clients) c.onWorkerLost();
    };
    worker.on('error', lost);
    worker.on('exit', lost);
    this.worker = worker;
  }
}

export const screenHost = new ScreenHost();

import fs from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { FromScreenWorker, ToScreenWorker } from './screen-protocol.js';

/** What the host routes worker messages to: one per session screen. */
export interface ScreenClient {
  onWorkerMessage(message: FromScreenWorker): void;
  /** The worker died: pending replays resolve empty, the screen goes inert. */
  onWorkerLost(): void;
}

/**
 * The worker: compiled JS beside this file; when running from TypeScript sources (tests), a
 * bootstrap registers tsx in the thread first (Node 20 does not pass loader hooks to workers).
 */
function startWorker(): Worker {
  const js = new URL('./screen-worker.js', import.meta.url);
  if (fs.existsSync(fileURLToPath(js))) return new Worker(js);
  const require = createRequire(import.meta.url);
  const tsxApi = pathToFileURL(require.resolve('tsx/esm/api').replace(/\.cjs$/, '.mjs')).href;
  const ts = new URL('./screen-worker.ts', import.meta.url).href;
  const boot = `import(${JSON.stringify(tsxApi)}).then((m) => { m.register(); return import(${JSON.stringify(ts)}); });`;
  return new Worker(boot, { eval: true });
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
    const worker = startWorker();
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

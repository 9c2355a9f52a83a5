import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { Worker } from 'node:worker_threads';
import { afterEach, describe, expect, it } from 'vitest';
import { DAEMON_NODE_FLAGS } from '@clippy/protocol';
import { startWorker } from './worker-start.js';

const cleanups: Array<() => Promise<unknown> | void> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
});

/** A worker module from TypeScript sources (the path tests take) that says it runs. */
function probeModule(): URL {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-worker-start-'));
  cleanups.push(() => fs.rmSync(dir, { recursive: true, force: true }));
  fs.writeFileSync(path.join(dir, 'package.json'), '{ "type": "module" }\n');
  fs.writeFileSync(
    path.join(dir, 'probe.ts'),
    "import { parentPort } from 'node:worker_threads';\n" +
      "const ready: string = 'running';\n" +
      'parentPort!.postMessage(ready);\n',
  );
  return pathToFileURL(path.join(dir, 'probe'));
}

describe('startWorker', () => {
  it('starts a worker from sources in a daemon started with DAEMON_NODE_FLAGS', async () => {
    // The daemon's own node flags are V8's, which a worker's execArgv refuses.
    const saved = [...process.execArgv];
    process.execArgv.push(...DAEMON_NODE_FLAGS);
    let worker: Worker | null = null;
    try {
      worker = startWorker(probeModule());
    } finally {
      process.execArgv.splice(0, process.execArgv.length, ...saved);
    }
    const w = worker;
    cleanups.push(() => w.terminate());
    const said = await new Promise((resolve, reject) => {
      w.once('message', resolve);
      w.once('error', reject);
    });
    expect(said).toBe('running');
  });
});

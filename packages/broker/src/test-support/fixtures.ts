import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startBroker, type Broker } from '../server.js';
import type { BrokerOptions } from '../config.js';
import { silentLogger } from '../log.js';
import { until } from '@clippy/testkit/until';
import { RawClient } from './raw-client.js';

/** A temp XDG_RUNTIME_DIR (and state dir) for one test; `cleanup` removes it. */
export function tempRuntime(): { dir: string; env: Record<string, string>; cleanup: () => void } {
  const dir = mkdtempSync(join(tmpdir(), 'clippy-'));
  const env = { XDG_RUNTIME_DIR: join(dir, 'run'), XDG_STATE_HOME: join(dir, 'state'), HOME: dir };
  return { dir, env, cleanup: () => rmSync(dir, { recursive: true, force: true }) };
}

export interface TestBroker {
  broker: Broker;
  socket: string;
  env: Record<string, string>;
  dir: string;
  clients: RawClient[];
  /** Opens a handshaken client that is closed by `stop`. */
  client(): Promise<RawClient>;
  stop(): Promise<void>;
}

/** Starts an in-process broker in a fresh runtime dir. */
export async function startTestBroker(options: Partial<BrokerOptions> = {}): Promise<TestBroker> {
  const rt = tempRuntime();
  const broker = await startBroker({ env: rt.env, logger: silentLogger(), ...options });
  const clients: RawClient[] = [];
  return {
    broker,
    socket: broker.socketPath,
    env: rt.env,
    dir: rt.dir,
    clients,
    async client() {
      const c = await RawClient.open(broker.socketPath);
      clients.push(c);
      return c;
    },
    async stop() {
      for (const c of clients) c.close();
      await broker.close();
      rt.cleanup();
    },
  };
}

/** An environment for children: the test process's PATH, a fixed TERM, nothing else surprising. */
export function childEnv(extra: Record<string, string> = {}): Record<string, string> {
  return {
    PATH: process.env.PATH ?? '/usr/bin:/bin',
    TERM: 'xterm-256color',
    HOME: tmpdir(),
    LANG: 'C.UTF-8',
    ...extra,
  };
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Waits until `predicate` holds (for broker-side state no message announces): testkit's until. */
export function waitUntil(predicate: () => boolean, timeoutMs = 10_000): Promise<void> {
  return until(predicate, 'broker state', timeoutMs);
}

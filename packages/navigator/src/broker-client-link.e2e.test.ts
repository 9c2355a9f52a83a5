import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bins } from '@clippy/testkit/paths';
import { TestDaemon } from '@clippy/testkit/daemon';
import { afterEach, describe, expect, it } from 'vitest';
import { ClientBrokerLink } from './broker-client-link.js';
import { navigate } from './navigator.js';
import { OfflinePlanner } from './offline-planner.js';
import { buildMissing } from '@clippy/testkit/requirements';

const appRoot = fileURLToPath(new URL('../test/fixtures/app', import.meta.url));
const brokerBuilt =
  buildMissing(path.join(path.dirname(bins.clippyd), '..', 'dist', 'main.js')) === null;

let daemon: TestDaemon | undefined;
afterEach(async () => {
  await daemon?.stop();
  daemon = undefined;
});

describe('broker link without a broker', () => {
  it('resolves to null (standalone) when nothing listens', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-'));
    try {
      const link = await ClientBrokerLink.connect({
        connect: { socket: path.join(dir, 'none.sock') },
      });
      expect(link).toBeNull();
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe.skipIf(!brokerBuilt)('navigator registered with a real broker (built clippyd)', () => {
  it('registers as kind navigator, is idle between steps, publishes turns, and deregisters', async () => {
    daemon = await TestDaemon.start();
    const warnings: string[] = [];
    const link = await ClientBrokerLink.connect({
      connect: { env: daemon.env.env },
      onWarning: (m) => warnings.push(m),
    });
    expect(link).not.toBeNull();
    // A session already named "nav" makes the run take the next free name.
    const other = await ClientBrokerLink.connect({ connect: { env: daemon.env.env } });
    await other!.start({ goal: 'x', root: appRoot });
    const observer = await daemon.connect();
    const seen: { name: string; kind: string; state: string; turns: number }[] = [];
    try {
      const result = await navigate({
        root: appRoot,
        goal: 'fix the token refresh bug in auth',
        planner: new OfflinePlanner(),
        pricing: { model: 'offline', input: 0, output: 0 },
        tokenBudget: 3000,
        indexOptions: { cache: false },
        broker: link!,
        onTurn: async () => {
          const { sessions } = await observer.request('list_sessions', {});
          const s = sessions.find((x) => x.session === link!.sessionId)!;
          seen.push({ name: s.name, kind: s.kind, state: s.state, turns: s.turn_count });
        },
      });
      expect(warnings).toEqual([]);
      expect(seen[0]).toEqual({ name: 'nav-2', kind: 'navigator', state: 'idle', turns: 1 });
      expect(seen.map((s) => s.turns)).toEqual(result.reports.map((_, i) => i + 1));
      expect(link!.closed).toBe(true);
      const { sessions } = await observer.request('list_sessions', {});
      // Deregistered and removed: no exited `nav` session is left behind.
      expect(sessions.find((x) => x.session === link!.sessionId)).toBeUndefined();
      expect(sessions.filter((x) => x.state === 'exited')).toEqual([]);
    } finally {
      await other!.close();
      await observer.close();
    }
  });

  it('keeps the exited session when asked (keep: true)', async () => {
    daemon = await TestDaemon.start();
    const link = await ClientBrokerLink.connect({
      connect: { env: daemon.env.env },
      keep: true,
    });
    const observer = await daemon.connect();
    try {
      await link!.start({ goal: 'x', root: appRoot });
      const id = link!.sessionId;
      await link!.close();
      const { sessions } = await observer.request('list_sessions', {});
      expect(sessions.find((x) => x.session === id)?.state).toBe('exited');
    } finally {
      await observer.close();
    }
  });
});

import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startTestBroker, type TestBroker } from '../test-support/fixtures.js';
import { RawClient } from '../test-support/raw-client.js';

let tb: TestBroker | null = null;
/** The daemon reads its settings through its own environment: put back after each test. */
const savedConfigHome = process.env.XDG_CONFIG_HOME;
afterEach(async () => {
  await tb?.stop();
  tb = null;
  if (savedConfigHome === undefined) delete process.env.XDG_CONFIG_HOME;
  else process.env.XDG_CONFIG_HOME = savedConfigHome;
});

describe('register with a broken config.json', () => {
  it('answers invalid_config and leaves no session behind, listed or announced', async () => {
    tb = await startTestBroker();
    const configHome = join(tb.dir, 'config');
    mkdirSync(join(configHome, 'clippy'), { recursive: true });
    const configFile = join(configHome, 'clippy', 'config.json');
    writeFileSync(configFile, '{\n  "turnRingDepth": \n}\n');
    process.env.XDG_CONFIG_HOME = configHome;

    const watcher = await tb.client();
    await watcher.ok('subscribe', { events: ['session_created'] });
    const w = await RawClient.open(tb.socket, 'wrapper');
    tb.clients.push(w); // closed by stop()
    const r = await w.request('register', {
      session: 'agent',
      pid: process.pid,
      pattern: 'generic',
    });
    expect(r).toMatchObject({ status: 'error', error: 'invalid_config' });
    expect(r.message).toContain(configFile);
    expect((await watcher.ok('list_sessions')).sessions).toEqual([]);
    expect(watcher.messages.some((m) => m.type === 'session_created')).toBe(false);

    // Mended, the same name registers: nothing half-made holds it.
    writeFileSync(configFile, '{}\n');
    await w.ok('register', { session: 'agent', pid: process.pid, pattern: 'generic' });
  });
});

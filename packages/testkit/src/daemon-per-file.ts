import { afterAll, afterEach, beforeAll, beforeEach } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import { TestDaemon } from './daemon.js';
import { eventually } from './until.js';

/** How long emptying a shared daemon between tests may take: sessions end, clients leave. */
const EMPTY_TIMEOUT_MS = 15_000;
/** Pause between two looks at the daemon's client count while the last clients leave. */
const EMPTY_POLL_MS = 20;

/**
 * One daemon and one client of it for a whole test file, for the e2e files whose tests do not
 * need a fresh daemon each (a daemon costs about a second to start): started before the file's
 * first test, the client closed and the daemon stopped (by PID, its directories removed) after
 * its last. `onReady` receives both; the file keeps them where its tests read them.
 */
export function daemonForFile(
  onReady: (daemon: TestDaemon, client: ClippyClient) => void,
  opts: Parameters<typeof TestDaemon.start>[0] = {},
): void {
  let daemon: TestDaemon | undefined;
  let client: ClippyClient | undefined;
  beforeAll(async () => {
    daemon = await TestDaemon.start(opts);
    client = await daemon.connect();
    onReady(daemon, client);
  });
  afterAll(async () => {
    await client?.close();
    await daemon?.stop();
  });
}

/**
 * One daemon for a file whose tests each expect an empty one (no session, no other client), as
 * a daemon of their own would be, without paying a daemon start per test: after each test every
 * session is killed (SIGKILL, by the daemon, which owns them) and removed, and the test waits
 * until its other clients have left. A test that stopped or killed the daemon gets a new one
 * before the next. Register it before the file's own `afterEach` (vitest runs those last-first,
 * so the file's clean-up, e.g. closing its terminals, comes before the emptying).
 */
export function emptyDaemonPerTest(
  onReady: (daemon: TestDaemon) => void,
  opts: Parameters<typeof TestDaemon.start>[0] = {},
): void {
  let daemon: TestDaemon | undefined;
  const ensure = async () => {
    if (daemon?.running) return;
    await daemon?.stop();
    daemon = await TestDaemon.start(opts);
    onReady(daemon);
  };
  beforeAll(ensure);
  beforeEach(ensure);
  afterEach(async () => {
    if (daemon?.running) await empty(daemon);
  });
  afterAll(async () => {
    await daemon?.stop();
  });
}

/** Kills and removes every session of `daemon`, then waits until this is its only client. */
async function empty(daemon: TestDaemon): Promise<void> {
  const c = await daemon.connect();
  try {
    const { sessions } = await c.request('list_sessions', {});
    for (const s of sessions) {
      await c.request('kill', { session: s.session, signal: 'SIGKILL', remove: true });
    }
    let clients = 0;
    await eventually(
      async () => {
        clients = (await c.request('daemon_status', {})).clients;
        return clients <= 1;
      },
      () => `${clients - 1} clients gone after the test`,
      EMPTY_TIMEOUT_MS,
      EMPTY_POLL_MS,
    );
  } finally {
    await c.close();
  }
}

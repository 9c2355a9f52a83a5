import { afterAll, beforeAll } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import { TestDaemon } from './daemon.js';

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

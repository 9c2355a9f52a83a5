import { chromium, type Browser, type BrowserServer } from 'playwright-core';
import { installed } from './installed.js';
import { unavailable } from './requirements.js';

/** The system Chromium (Debian's `chromium` package): tests never download a browser. */
export const CHROMIUM_PATH = '/usr/bin/chromium';
/** How long a closing browser may take before it is killed by PID. */
const BROWSER_CLOSE_TIMEOUT_MS = 5_000;

/** Why browser tests skip here, or null when the system Chromium is present (in CI: throws). */
export function chromiumMissing(): string | null {
  return unavailable(
    installed('chromium') ? null : 'chromium is not installed (apt-get install chromium)',
  );
}

/** A headless Chromium driven by playwright-core; dispose() stops it by PID. */
export class TestBrowser {
  private constructor(
    private readonly server: BrowserServer,
    readonly browser: Browser,
    readonly pid: number,
  ) {}

  static async launch(): Promise<TestBrowser> {
    // A browser server: its process (and PID) is ours to stop.
    const server = await chromium.launchServer({
      executablePath: CHROMIUM_PATH,
      headless: true,
      // Containers run tests as root, where Chromium's sandbox cannot start.
      args: ['--no-sandbox', '--disable-dev-shm-usage', '--disable-gpu'],
    });
    const pid = server.process().pid;
    if (pid === undefined) {
      await server.kill();
      throw new Error('Chromium started without a process ID');
    }
    try {
      return new TestBrowser(server, await chromium.connect(server.wsEndpoint()), pid);
    } catch (err) {
      process.kill(pid, 'SIGKILL');
      throw err;
    }
  }

  async dispose(): Promise<void> {
    const closed = this.browser
      .close()
      .then(() => this.server.close())
      .catch(() => {});
    const timer = new Promise((r) => setTimeout(r, BROWSER_CLOSE_TIMEOUT_MS));
    await Promise.race([closed, timer]);
    try {
      process.kill(this.pid, 'SIGKILL');
    } catch {
      // Already gone: the close worked.
    }
  }
}

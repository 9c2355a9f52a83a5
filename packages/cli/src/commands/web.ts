import { spawn } from 'node:child_process';
import type { CommandModule } from 'yargs';
import { withClient, withSocket, type CommonArgs } from '../connect.js';
import { intOption } from '../int-option.js';
import { removeRedirectPage, writeRedirectPage } from '@clippy/client/lean';

interface WebArgs extends CommonArgs {
  port?: number;
  open?: boolean;
  stop?: boolean;
  rotate?: boolean;
  json?: boolean;
}

/** The program that opens a URL in the user's browser, per platform. */
const OPENER = process.platform === 'darwin' ? 'open' : 'xdg-open';

/**
 * Hands the page to the desktop's opener, as a file:// URL of a redirect page (the opener's
 * command line is visible to every user; the token must not be on it) that leads to a one-time
 * code, not the token (the browser's history keeps what it opened); says so (without failing)
 * when there is no opener.
 */
function openInBrowser(url: string, argv: WebArgs): void {
  const page = writeRedirectPage(url, process.env, argv.socket);
  const child = spawn(OPENER, [page], { stdio: 'ignore', detached: true });
  child.on('error', () =>
    process.stderr.write(`clippy: ${OPENER} is not available: open the URL yourself\n`),
  );
  child.unref();
}

/** `clippy web`: start (or show) the daemon's web view endpoint, or stop it. */
const command: CommandModule<object, WebArgs> = {
  command: 'web',
  describe: 'Serve the web view on 127.0.0.1 and print its URL (with its access token)',
  builder: (y) =>
    withSocket(y)
      .option(
        'port',
        intOption(
          'port',
          'TCP port on 127.0.0.1 (default: config.json’s web.port, else the one it had before, else any free port; 0: any free port)',
          { min: 0, max: 65535 },
          { alias: 'p' },
        ),
      )
      .option('open', {
        type: 'boolean',
        describe:
          'open the page in a browser (xdg-open / open) with a one-time code, through a file only you can read: the token is on no command line and in no browser history',
      })
      .option('stop', { type: 'boolean', describe: 'stop the web view endpoint' })
      .option('rotate', {
        type: 'boolean',
        describe:
          'make a new token (kept across restarts in the state directory): every open page must open the new URL',
      })
      .option('json', {
        type: 'boolean',
        describe: 'print {"url", "port", "token", "started"} (or {"stopped"}) as JSON',
      })
      .conflicts('stop', ['port', 'open', 'rotate']) as never,
  handler: async (argv) => {
    if (argv.stop) {
      const { stopped } = await withClient(argv, (c) => c.request('web_stop', {}), {
        autoStart: false,
      });
      removeRedirectPage(process.env, argv.socket);
      if (argv.json) process.stdout.write(`${JSON.stringify({ stopped })}\n`);
      else process.stdout.write(stopped ? 'web view stopped\n' : 'the web view was not running\n');
      return;
    }
    const port = argv.port;
    const result = await withClient(argv, (c) =>
      c.request('web_start', {
        ...(port === undefined ? {} : { port }),
        ...(argv.rotate ? { rotate: true } : {}),
        ...(argv.open ? { code: true } : {}),
      }),
    );
    if (argv.json) {
      process.stdout.write(`${JSON.stringify(result)}\n`);
    } else {
      if (result.moved) process.stderr.write(`clippy: ${result.moved}\n`);
      process.stdout.write(
        `${argv.rotate ? 'web view token rotated' : result.started ? 'web view started' : 'web view already running'}: ${result.url}\n` +
          (argv.rotate
            ? 'Every open tab and installed page was let go: open this new URL in each (the old one no longer signs in).\n'
            : '') +
          'Anyone with this URL can drive your sessions: keep the token private.\n',
      );
    }
    if (argv.open) openInBrowser(result.code_url ?? result.url, argv);
  },
};

export default command;

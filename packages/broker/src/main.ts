import { writeSync } from 'node:fs';
import yargs from 'yargs';
import { hideBin } from 'yargs/helpers';
import { DAEMON_EXIT_INVALID_CONFIG, NoRuntimeDirError } from '@clippy/protocol';
import { InvalidConfigError } from './turn-config/turn-config.js';
import { startBroker, type Broker } from './server.js';
import { AlreadyRunningError } from './transports/listen.js';

/** Exit codes of clippyd (documented in docs/broker.md). */
const EXIT_OK = 0;
const EXIT_FAILURE = 1;
const EXIT_USAGE = 2;
const EXIT_ALREADY_RUNNING = 3;

/** Writes to stderr if it can: a closed or full stderr must not become a fault of its own. */
function writeStderr(text: string): void {
  try {
    writeSync(2, text);
  } catch {
    // stderr is gone (a closed pipe, or none): the message has nowhere to go
  }
}

async function main(): Promise<void> {
  const argv = await yargs(hideBin(process.argv))
    .scriptName('clippyd')
    .usage(
      '$0 [options]\n\nThe clippy broker: owns PTY sessions and serves clients on a Unix socket.',
    )
    .option('socket', {
      type: 'string',
      describe: 'socket path (default: $CLIPPY_SOCKET, else $XDG_RUNTIME_DIR/clippy/broker.sock)',
    })
    .option('foreground', {
      type: 'boolean',
      default: false,
      describe: 'log to stderr and stop when the terminal hangs up (SIGHUP)',
    })
    .option('log-level', {
      type: 'string',
      default: 'info',
      choices: ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'],
      describe: 'log level (PTY content is only logged at trace)',
    })
    .strict()
    .help()
    .version(false)
    .fail((msg, err) => {
      writeStderr(`clippyd: ${err?.message ?? msg}\n`);
      process.exit(EXIT_USAGE);
    })
    .parseAsync();

  // Signal handlers go in before the socket exists: a signal that arrives while starting must
  // not kill the daemon with its default action once clients can already see it.
  let broker: Broker | null = null;
  let stopRequest: string | null = null;
  const stop = (signal: string) => {
    if (stopRequest) return;
    stopRequest = signal;
    broker?.log.info({ signal }, 'signal received');
    void broker?.close(`received ${signal}`);
  };
  process.on('SIGTERM', () => stop('SIGTERM'));
  process.on('SIGINT', () => stop('SIGINT'));
  // In the background the daemon must outlive the terminal that started it; in the foreground a
  // hang-up means the terminal running it is gone, so it stops.
  process.on('SIGHUP', () =>
    argv.foreground ? stop('SIGHUP') : broker?.log.info('SIGHUP ignored (background)'),
  );
  // A client's mistake never reaches here (every handler is wrapped); a bug of ours must not take
  // every session down with it either: log and keep serving.
  // Reporting a fault must never raise one: a handler that throws ends the process (exit 7),
  // and one that faults again would recurse. Logging drops what it cannot write, but a fault's
  // own report is guarded too.
  let reporting = false;
  const fault = (what: string) => (err: unknown) => {
    if (reporting) return;
    reporting = true;
    try {
      if (broker) {
        broker.log.error({ err }, what);
        return;
      }
      writeStderr(`clippyd: ${what} while starting: ${String(err)}\n`);
      process.exit(EXIT_FAILURE);
    } catch {
      // nowhere left to report it: keep serving
    } finally {
      reporting = false;
    }
  };
  process.on('uncaughtException', fault('uncaught exception'));
  process.on('unhandledRejection', fault('unhandled rejection'));

  try {
    broker = await startBroker({
      socket: argv.socket,
      foreground: argv.foreground,
      logLevel: argv['log-level'],
      onStopped: () => process.exit(EXIT_OK),
    });
  } catch (err) {
    if (err instanceof NoRuntimeDirError) {
      writeStderr(`clippyd: ${err.message}\n`);
      process.exit(EXIT_USAGE);
    }
    if (err instanceof InvalidConfigError) {
      // The same words every client prints for this error (`clippy new`, `clippy attach`...).
      writeStderr(`clippyd: ${err.message} (invalid_config)\n`);
      process.exit(DAEMON_EXIT_INVALID_CONFIG);
    }
    if (err instanceof AlreadyRunningError) {
      writeStderr(`clippyd: ${err.message}\n`);
      process.exit(EXIT_ALREADY_RUNNING);
    }
    writeStderr(`clippyd: could not start: ${(err as Error).message}\n`);
    process.exit(EXIT_FAILURE);
  }
  if (stopRequest) {
    broker.log.info({ signal: stopRequest }, 'signal received while starting');
    void broker.close(`received ${stopRequest}`);
    return;
  }
  if (argv.foreground) {
    writeStderr(`clippyd: listening on ${broker.socketPath} (pid ${process.pid})\n`);
  }
}

await main();

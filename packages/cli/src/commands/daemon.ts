import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import type { Argv, CommandModule } from 'yargs';
import { DAEMON_NODE_FLAGS, type Result, type StorePause } from '@clippy/protocol';
import { resolveSocketPaths } from '@clippy/client';
import { processRunning } from '@clippy/system/process';
import {
  DaemonVersionError,
  connectForCommand,
  daemonPath,
  withSocket,
  type CommonArgs,
} from '../connect.js';
import { install, uninstall, type InstallArgs } from '../daemon/install.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { clockTime, formatAge } from '../table.js';
import { cliVersion } from '../cli-version.js';
import { upgradeNotice } from '../upgrade-notice.js';

/** `clippy daemon status` when no daemon runs (LSB's "program is not running"). */
export const EXIT_NOT_RUNNING = 3;
/** How long `daemon stop` waits for the socket to disappear: the broker's shutdown and kill graces, plus margin. */
export const STOP_TIMEOUT_MS = 10_000;
/** Pause between checks while waiting for the socket to go. */
const STOP_POLL_MS = 50;

interface DaemonArgs extends CommonArgs {
  foreground?: boolean;
  force?: boolean;
  json?: boolean;
  'log-level'?: string;
}

/** Connects without starting anything; null when no daemon answers. */
async function tryConnect(args: CommonArgs) {
  try {
    return (await connectForCommand(args, { autoStart: false, upgradeNotice: false })).client;
  } catch (err) {
    if (
      err instanceof CliError &&
      err.exitCode === EXIT.noBroker &&
      /not running/.test(err.message)
    )
      return null;
    throw err;
  }
}

/** Runs clippyd in this process's place: stdio inherited, signals forwarded, its exit code passed through. */
function runForeground(args: DaemonArgs): Promise<number> {
  const daemonArgs = [...DAEMON_NODE_FLAGS, daemonPath(), '--foreground'];
  if (args.socket) daemonArgs.push('--socket', args.socket);
  if (args['log-level']) daemonArgs.push('--log-level', args['log-level']);
  const child = spawn(process.execPath, daemonArgs, { stdio: 'inherit' });
  const forwarded = ['SIGTERM', 'SIGINT', 'SIGHUP', 'SIGQUIT', 'SIGUSR1', 'SIGUSR2'] as const;
  const handlers = forwarded.map((sig) => {
    const h = () => child.kill(sig);
    process.on(sig, h);
    return [sig, h] as const;
  });
  return new Promise((resolve, reject) => {
    child.once('error', (err) =>
      reject(new CliError(`cannot run clippyd: ${err.message}`, EXIT.noBroker)),
    );
    child.once('exit', (code, signal) => {
      for (const [sig, h] of handlers) process.off(sig, h);
      resolve(
        code ?? 128 + ((signal && (os.constants.signals as Record<string, number>)[signal]) || 0),
      );
    });
  });
}

async function start(args: DaemonArgs): Promise<void> {
  if (args.foreground) {
    process.exitCode = await runForeground(args);
    return;
  }
  const existing = await tryConnect(args);
  if (existing) {
    process.stdout.write(`clippy daemon already running (pid ${existing.brokerPid ?? '?'})\n`);
    await existing.close();
    return;
  }
  const { client, startedPid } = await connectForCommand(args);
  process.stdout.write(`clippy daemon started (pid ${client.brokerPid ?? startedPid ?? '?'})\n`);
  await client.close();
}

type DaemonStatus = Result<'daemon_status'>;

/** The log file, or where logging goes instead and why. */
function logFileLine(s: DaemonStatus): string {
  const { destination, last_error } = s.log;
  if (destination === 'stderr') return 'stderr (foreground)';
  if (destination === 'none') {
    return `${s.log_file ?? '-'} (cannot be opened, not logging: ${last_error ?? 'unknown error'})`;
  }
  return s.log_file ?? '-';
}

/** "N lines dropped", with the likely cause and the last error. */
function droppedLine(log: DaemonStatus['log']): string {
  const full = /ENOSPC|EDQUOT|EFBIG/.test(log.last_error ?? '') ? ' (disk full?)' : '';
  const n = log.dropped_lines;
  return `${n} line${n === 1 ? '' : 's'} dropped${full}${log.last_error ? `; last error: ${log.last_error}` : ''}`;
}

/** The turn history: what it holds and where, or why there is none. */
function historyLine(s: DaemonStatus): string {
  const h = s.store;
  if (h === undefined) return '-';
  if (h === null)
    return `UNAVAILABLE: ${s.history_unavailable ?? 'it could not be opened; see the log'} (--persist is refused)`;
  const mib = (n: number) => `${(n / 1024 / 1024).toFixed(1)} MiB`;
  const state = h.paused ? 'PAUSED, ' : '';
  return `${state}${h.turns} turns of ${h.sessions} persisted sessions, ${mib(h.bytes)} of ${mib(h.max_bytes)} (${h.dir})`;
}

/**
 * The latest pause of persistence and what it cost: shown also once writing resumed, since the
 * turns completed meanwhile are never written.
 */
function pauseLine(p: StorePause): [string, string] {
  const turns = `${p.turns_not_written} turn${p.turns_not_written === 1 ? '' : 's'}`;
  if (p.until === null) return ['unsaved', `${turns} since ${clockTime(p.since)}, in memory only`];
  return [
    'WARNING',
    `persistence was paused ${clockTime(p.since)}–${clockTime(p.until)} (${p.reason}): ${turns} not written, in memory only`,
  ];
}

async function status(args: DaemonArgs): Promise<void> {
  const client = await tryConnect(args);
  if (!client) {
    const socket = resolveSocketPaths(process.env, args.socket).socket;
    if (args.json) process.stdout.write(`${JSON.stringify({ running: false, socket })}\n`);
    else process.stdout.write(`clippy daemon is not running (socket ${socket})\n`);
    process.exitCode = EXIT_NOT_RUNNING;
    return;
  }
  try {
    const s = await client.request('daemon_status', {});
    const upgrade = upgradeNotice(s.package_version, s.pid);
    if (args.json) {
      const out = { running: true, ...s, cli_version: cliVersion(), upgrade };
      process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
      return;
    }
    const lines = [
      ['pid', String(s.pid)],
      ['uptime', formatAge(s.uptime_ms)],
      ['sessions', `${s.live_sessions} live, ${s.sessions} total`],
      ['clients', String(s.clients)],
      ['socket', s.socket],
      ['ws socket', s.ws_socket ?? '-'],
      ['log file', logFileLine(s)],
      ...(s.log.dropped_lines > 0 ? [['log', droppedLine(s.log)]] : []),
      ['history', historyLine(s)],
      ...(s.store?.warning ? [['WARNING', s.store.warning]] : []),
      ...(s.store?.last_pause ? [pauseLine(s.store.last_pause)] : []),
      ['memory', `${(s.rss_bytes / 1024 / 1024).toFixed(1)} MiB RSS`],
      ['version', `${s.package_version} (protocol ${s.version})`],
      ...(upgrade ? [['UPGRADE', upgrade]] : []),
    ];
    process.stdout.write(
      `clippy daemon is running\n${lines.map(([k, v]) => `  ${k!.padEnd(10)} ${v}`).join('\n')}\n`,
    );
  } finally {
    await client.close();
  }
}

async function stop(args: DaemonArgs): Promise<void> {
  const client = await tryConnect(args);
  const socket = resolveSocketPaths(process.env, args.socket).socket;
  if (!client) {
    process.stdout.write('clippy daemon is not running\n');
    return;
  }
  const pid = client.brokerPid;
  try {
    await client.request('shutdown', {});
  } catch (err) {
    // The daemon may close the connection before its answer arrives: that is success too.
    if (!/closed|lost/.test((err as Error).message)) throw err;
  }
  await client.close();
  await waitGone(socket, pid);
  process.stdout.write(`clippy daemon stopped (pid ${pid ?? '?'})\n`);
}

/** Waits until the daemon is gone: its socket removed and (when known) its process ended. */
async function waitGone(socket: string, pid: number | undefined): Promise<void> {
  const deadline = Date.now() + STOP_TIMEOUT_MS;
  while (fs.existsSync(socket) || (pid !== undefined && processRunning(pid))) {
    if (Date.now() > deadline) {
      throw new CliError(
        `the clippy daemon (pid ${pid ?? '?'}) did not stop within ${STOP_TIMEOUT_MS} ms`,
        EXIT.failure,
      );
    }
    await new Promise((r) => setTimeout(r, STOP_POLL_MS));
  }
}

/** What restarting costs, said before doing it. */
const SESSIONS_END =
  "the daemon owns the sessions' terminals: they end with it and a new daemon cannot take them over";

/**
 * `daemon restart`: stop the running daemon (also one of another protocol version, which can
 * only be told to stop by signal) and start this clippy's. Refuses without --force while
 * sessions would end, or when it cannot know (another version's daemon).
 */
async function restart(args: DaemonArgs): Promise<void> {
  const socket = resolveSocketPaths(process.env, args.socket).socket;
  let client;
  try {
    client = await tryConnect(args);
  } catch (err) {
    if (!(err instanceof DaemonVersionError)) throw err;
    if (!args.force) {
      throw new CliError(
        `the running daemon${err.brokerPid ? ` (pid ${err.brokerPid})` : ''} speaks another protocol version; ` +
          `restarting ends its sessions (${SESSIONS_END}). Run \`clippy daemon restart --force\` to do it.`,
        EXIT.failure,
      );
    }
    if (err.brokerPid === undefined) throw new CliError('the old daemon did not say its pid');
    process.kill(err.brokerPid, 'SIGTERM');
    await waitGone(socket, err.brokerPid);
    process.stdout.write(`clippy daemon stopped (pid ${err.brokerPid})\n`);
  }
  if (client) {
    const { sessions } = await client.request('list_sessions', {});
    await client.close();
    const live = sessions.filter((s) => s.state !== 'exited').length;
    if (live > 0 && !args.force) {
      throw new CliError(
        `restarting ends ${live} live session${live === 1 ? '' : 's'} (${SESSIONS_END}). ` +
          'Run `clippy daemon restart --force` to do it.',
        EXIT.failure,
      );
    }
    await stop(args);
  }
  await start({ ...args, foreground: false });
}

/** `clippy daemon start|stop|restart|status|install|uninstall`. */
const command: CommandModule<object, DaemonArgs> = {
  command: 'daemon',
  describe: 'Start, stop or inspect the clippy daemon (clippyd)',
  builder: (y: Argv) =>
    withSocket(y)
      .command({
        command: 'start',
        describe: 'Start the daemon in the background if it is not running',
        builder: (s: Argv) =>
          withSocket(s)
            .option('foreground', {
              type: 'boolean',
              describe: 'run in the foreground (for service managers)',
            })
            .option('log-level', {
              type: 'string',
              requiresArg: true,
              describe: 'with --foreground: log level',
            }),
        handler: (a) => start(a as DaemonArgs),
      })
      .command({
        command: 'stop',
        describe: 'Stop the daemon (its sessions end) and wait until it is gone',
        builder: (s: Argv) => withSocket(s),
        handler: (a) => stop(a as DaemonArgs),
      })
      .command({
        command: 'status',
        describe: `Show pid, uptime, sessions, socket and log file (exit ${EXIT_NOT_RUNNING} if not running)`,
        builder: (s: Argv) =>
          withSocket(s).option('json', { type: 'boolean', describe: 'print as JSON' }),
        handler: (a) => status(a as DaemonArgs),
      })
      .command({
        command: 'restart',
        describe: "Replace the running daemon with this clippy's (its sessions end: --force)",
        builder: (s: Argv) =>
          withSocket(s).option('force', {
            type: 'boolean',
            describe: 'restart even though live sessions end',
          }),
        handler: (a) => restart(a as DaemonArgs),
      })
      .command({
        command: 'install',
        describe: 'Start clippyd at login: a systemd user unit (Linux) or a launchd agent (macOS)',
        builder: (s: Argv) =>
          s
            .option('now', { type: 'boolean', describe: 'also start it now (systemd)' })
            .option('enable', {
              type: 'boolean',
              default: true,
              describe: '--no-enable: only write the file, and say how to enable it',
            }),
        handler: (a) => install(a as InstallArgs),
      })
      .command({
        command: 'uninstall',
        describe: 'Undo `daemon install`: disable and remove the service file',
        builder: (s: Argv) =>
          s.option('enable', {
            type: 'boolean',
            default: true,
            describe: '--no-enable: only remove the file (no systemctl/launchctl)',
          }),
        handler: (a) => uninstall(a as InstallArgs),
      })
      .demandCommand(
        1,
        'Name an action: start, stop, restart, status, install or uninstall.',
      ) as never,
  handler: () => {},
};

export default command;

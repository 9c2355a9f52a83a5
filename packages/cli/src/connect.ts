import { createRequire } from 'node:module';
import type { Argv } from 'yargs';
import {
  BrokerError,
  DaemonNotRunningError,
  DaemonStartError,
  NoRuntimeDirError,
  VersionMismatchError,
  connectDetailed,
  resolveSocketPaths,
  type ClippyClient,
  type ConnectResult,
} from '@clippy/client/lean';
import { DAEMON_EXIT_INVALID_CONFIG, PROTOCOL_VERSION } from '@clippy/protocol';
import { CliError, isCliError } from './errors.js';
import { EXIT } from './exit-codes.js';
import type { Host } from './remote/host-ref.js';
import { loadModule } from './load-module.js';

type HostRefModule = typeof import('./remote/host-ref.js');
import { noticeUpgradeOnce } from './upgrade-notice.js';

/** Options every command takes. */
export interface CommonArgs {
  socket?: string;
  host?: string;
}

/** Adds `--socket PATH` and `--host HOST` (every command has them). */
export function withSocket<T>(y: Argv<T>): Argv<T & CommonArgs> {
  return y
    .option('socket', {
      type: 'string',
      describe: 'broker socket (default: $CLIPPY_SOCKET, else $XDG_RUNTIME_DIR/clippy/broker.sock)',
      requiresArg: true,
    })
    .option('host', {
      type: 'string',
      describe:
        'run against the daemon on HOST through SSH ([user@]host or a name from the config file; default: $CLIPPY_HOST)',
      requiresArg: true,
    }) as Argv<T & CommonArgs>;
}

/**
 * Where clippyd's entry point is: $CLIPPYD_PATH, else the broker package's bin resolved next
 * to this one (the CLI never imports broker code, it only starts the process).
 */
export function daemonPath(env: NodeJS.ProcessEnv = process.env): string {
  if (env.CLIPPYD_PATH) return env.CLIPPYD_PATH;
  return createRequire(import.meta.url).resolve('@clippy/broker/bin/clippyd.js');
}

/**
 * The running daemon speaks another protocol version (another clippy started it): says so and
 * what to do. It cannot be updated in place: it owns the sessions' terminals.
 */
export class DaemonVersionError extends CliError {
  readonly brokerPid: number | undefined;
  constructor(err: VersionMismatchError) {
    const pid = err.brokerPid === undefined ? '' : ` (pid ${err.brokerPid})`;
    super(
      `the running clippy daemon${pid} speaks protocol version ${err.brokerVersion ?? '?'}, ` +
        `this clippy speaks ${PROTOCOL_VERSION}: it was started by another version of clippy.\n` +
        'Run `clippy daemon restart --force` to replace it. Its sessions end then: the daemon owns ' +
        'their terminals, and a new daemon cannot take them over.',
      EXIT.noBroker,
    );
    this.brokerPid = err.brokerPid;
  }
}

export interface CliConnectOptions {
  /** Start the daemon when it is not running (default true). */
  autoStart?: boolean;
  transport?: 'unix' | 'ws';
  /**
   * Say once that the daemon runs another clippy release (default true); false where the
   * command says it itself (daemon status, doctor) or the daemon is another machine's.
   */
  upgradeNotice?: boolean;
}

/** A command's connection; `remote`: to a daemon on another machine (through SSH). */
export interface CommandConnection extends ConnectResult {
  remote: boolean;
}

/** Connects for a command, mapping "no daemon" failures to CliErrors with EXIT.noBroker. */
export async function connectForCommand(
  args: CommonArgs,
  opts: CliConnectOptions = {},
): Promise<CommandConnection> {
  // Hosts come from the config file: read (with its schemas) only when a host is asked for.
  if (args.host === undefined && !process.env.CLIPPY_HOST) {
    return { ...(await connectLocal(args, opts)), remote: false };
  }
  const { commandHost } = await loadModule<HostRefModule>('remote/host-ref.js');
  const host = commandHost(args.host, process.env);
  if (host.kind === 'ssh') {
    if (args.socket) throw new CliError('--socket and --host cannot be used together', EXIT.usage);
    return { ...(await connectToHost(host, opts)), remote: true };
  }
  return { ...(await connectLocal(args, opts)), remote: false };
}

/** Connects to the daemon of `host`: the local one, or a remote one through its SSH forwarding. */
export async function connectToHost(
  host: Host,
  opts: CliConnectOptions = {},
): Promise<ConnectResult> {
  if (host.kind === 'local') return connectLocal({}, opts);
  const { openForward } =
    await loadModule<typeof import('./remote/ssh-forward.js')>('remote/ssh-forward.js');
  const { hostLabel } = await loadModule<HostRefModule>('remote/host-ref.js');
  const attempt = async (fresh: boolean) => {
    const f = await openForward(host.destination, process.env, fresh);
    return connectLocal({ socket: f.socket }, { ...opts, autoStart: false, upgradeNotice: false });
  };
  try {
    return await attempt(false);
  } catch (err) {
    // The daemon answered and refused (a protocol version mismatch): retrying cannot help.
    if (err instanceof BrokerError) throw onHost(host, hostLabel(host), err);
    // A forwarding kept from before can point at a daemon that has gone since: once more, fresh.
    try {
      return await attempt(true);
    } catch (again) {
      throw onHost(host, hostLabel(host), again);
    }
  }
}

/** An error of talking to `host`, saying which host (once). */
function onHost(host: Host, name: string, err: unknown): unknown {
  const label = host.kind === 'ssh' ? host.destination : name;
  if (err instanceof BrokerError) {
    return new CliError(`host ${name}: ${err.message} (${err.code})`, EXIT.noBroker);
  }
  if (isCliError(err) && !err.message.startsWith(`${label}:`)) {
    return new CliError(`host ${name}: ${err.message}`, err.exitCode);
  }
  return err;
}

async function connectLocal(args: CommonArgs, opts: CliConnectOptions): Promise<ConnectResult> {
  const base = {
    ...(args.socket ? { socket: args.socket } : {}),
    env: process.env,
    transport: opts.transport ?? 'unix',
  } as const;
  try {
    try {
      const connected = await connectDetailed(base);
      if (opts.upgradeNotice !== false) {
        const { client } = connected;
        const socket = resolveSocketPaths(process.env, args.socket).socket;
        noticeUpgradeOnce(socket, client.brokerPackageVersion, client.brokerPid);
      }
      return connected;
    } catch (err) {
      // Only now look for clippyd: resolving its path costs every command some milliseconds.
      if (!(err instanceof DaemonNotRunningError) || opts.autoStart === false) throw err;
      return await connectDetailed({ ...base, autoStart: { daemonPath: daemonPath() } });
    }
  } catch (err) {
    if (err instanceof VersionMismatchError) throw new DaemonVersionError(err);
    if (err instanceof DaemonStartError && err.exitCode === DAEMON_EXIT_INVALID_CONFIG) {
      // The daemon refused a broken settings file: the same loader here says which, and where.
      const { readConfigFile, readPresetsFile } =
        await loadModule<typeof import('./config-files.js')>('config-files.js');
      readConfigFile();
      readPresetsFile();
    }
    if (
      err instanceof NoRuntimeDirError ||
      err instanceof DaemonNotRunningError ||
      err instanceof DaemonStartError
    ) {
      throw new CliError(err.message, EXIT.noBroker);
    }
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EACCES' || code === 'ENOTSOCK' || code === 'ECONNRESET') {
      throw new CliError(
        `cannot talk to the clippy daemon: ${(err as Error).message}`,
        EXIT.noBroker,
      );
    }
    throw err;
  }
}

/** Connects (starting the daemon if needed) and runs `fn`, closing the connection after. */
export async function withClient<R>(
  args: CommonArgs,
  fn: (client: ClippyClient) => Promise<R>,
  opts: CliConnectOptions = {},
): Promise<R> {
  const { client } = await connectForCommand(args, opts);
  try {
    return await fn(client);
  } finally {
    await client.close();
  }
}

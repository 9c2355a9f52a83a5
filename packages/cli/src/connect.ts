import { createRequire } from 'node:module';
import type { Argv } from 'yargs';
import {
  DaemonNotRunningError,
  DaemonStartError,
  NoRuntimeDirError,
  connectDetailed,
  type ClippyClient,
  type ConnectResult,
} from '@clippy/client';
import { CliError } from './errors.js';
import { EXIT } from './exit-codes.js';

/** Options every command takes. */
export interface CommonArgs {
  socket?: string;
}

/** Adds `--socket PATH` (every command has it). */
export function withSocket<T>(y: Argv<T>): Argv<T & CommonArgs> {
  return y.option('socket', {
    type: 'string',
    describe: 'broker socket (default: $CLIPPY_SOCKET, else $XDG_RUNTIME_DIR/clippy/broker.sock)',
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

export interface CliConnectOptions {
  /** Start the daemon when it is not running (default true). */
  autoStart?: boolean;
  transport?: 'unix' | 'ws';
}

/** Connects for a command, mapping "no daemon" failures to CliErrors with EXIT.noBroker. */
export async function connectForCommand(
  args: CommonArgs,
  opts: CliConnectOptions = {},
): Promise<ConnectResult> {
  try {
    return await connectDetailed({
      ...(args.socket ? { socket: args.socket } : {}),
      env: process.env,
      transport: opts.transport ?? 'unix',
      ...(opts.autoStart === false ? {} : { autoStart: { daemonPath: daemonPath() } }),
    });
  } catch (err) {
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

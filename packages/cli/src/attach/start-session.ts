import type { ClippyClient } from '@clippy/client';
import type { DetachKey } from '@clippy/protocol';
import { connectForCommand, type CommonArgs } from '../connect.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { directAttachAllowed, resolveDetachKey } from './config.js';
import { runAttach } from './attach-session.js';
import { checkInteractiveTerminal } from './needs-terminal.js';

// `new` and `revive` both start a session, then attach to it (or print it with -d): what they
// share is here, so that the two cannot drift (a check one does and the other forgets).

/** The options of a command that starts a session and attaches to it. */
export interface StartArgs extends CommonArgs {
  detach?: boolean;
  'detach-key'?: string;
  json?: boolean;
}

export const DETACH_OPTION = {
  alias: 'd',
  type: 'boolean',
  describe: 'do not attach: print the session name and ID',
} as const;

export const DETACH_KEY_OPTION = {
  type: 'string',
  requiresArg: true,
  describe: 'key that detaches (default ctrl-])',
} as const;

/** What a session started: the session to print or attach to. */
interface Started {
  name: string;
  session: string;
}

/**
 * What is checked before anything starts, so that a refusal leaves nothing running behind it:
 * the detach key (a bad one is a usage error) and, to attach, a terminal to attach with.
 * Returns the detach key; undefined with --detach.
 */
export function beforeStart(argv: StartArgs, command: string): DetachKey | undefined {
  if (argv.detach) return undefined;
  let detachKey;
  try {
    detachKey = resolveDetachKey(argv['detach-key']);
  } catch (err) {
    throw new CliError((err as Error).message, EXIT.usage);
  }
  checkInteractiveTerminal(`${command} (it attaches)`, `start it detached: clippy ${command} -d`);
  return detachKey;
}

/** The caller's environment, for the session to start in. */
export function callerEnvironment(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  return env;
}

/** The size of the caller's terminal, when stdout is one: the session starts at that size. */
export function terminalSize(): { cols?: number; rows?: number } {
  if (!process.stdout.isTTY) return {};
  const { columns, rows } = process.stdout;
  return { ...(columns ? { cols: columns } : {}), ...(rows ? { rows } : {}) };
}

/**
 * Connects, starts the session (`start` sends the request), then prints it (`NAME\tID`, or the
 * whole answer with --json) with --detach, or attaches the terminal to it. The connection is
 * closed, unless the attachment took it (it closes it when it ends).
 */
export async function startThenAttach<S extends Started>(
  argv: StartArgs,
  detachKey: DetachKey | undefined,
  start: (client: ClippyClient) => Promise<S>,
  started?: (session: S) => void,
): Promise<void> {
  const { client, remote } = await connectForCommand(argv);
  let attached = false;
  try {
    const session = await start(client);
    started?.(session);
    if (argv.detach || !detachKey) {
      process.stdout.write(
        argv.json ? `${JSON.stringify(session)}\n` : `${session.name}\t${session.session}\n`,
      );
      return;
    }
    process.exitCode = await runAttach(client, {
      session: session.session,
      detachKey,
      direct: directAttachAllowed(remote),
    });
    attached = true;
  } finally {
    if (!attached) await client.close();
  }
}

import os from 'node:os';
import type { CommandModule } from 'yargs';
import { withClient, withSocket, type CommonArgs } from '../connect.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';

interface KillArgs extends CommonArgs {
  session: string;
  signal?: string;
  keep?: boolean;
}

/** Accepts `TERM`, `SIGTERM`, `sigterm` or `15`; returns the canonical name. */
export function normalizeSignal(input: string): string {
  const signals = os.constants.signals as Record<string, number>;
  const trimmed = input.trim();
  if (/^\d+$/.test(trimmed)) {
    const n = Number(trimmed);
    const name = Object.keys(signals).find((k) => signals[k] === n);
    if (name) return name;
  } else {
    const upper = trimmed.toUpperCase();
    const name = upper.startsWith('SIG') ? upper : `SIG${upper}`;
    if (signals[name] !== undefined) return name;
  }
  throw new CliError(
    `unknown signal '${input}' (use a name like TERM or KILL, or a number)`,
    EXIT.usage,
  );
}

/** `clippy kill`: signal a session's process group; the session is removed once it exited unless --keep. */
const command: CommandModule<object, KillArgs> = {
  command: 'kill <session>',
  describe: 'Kill a session (SIGHUP, then SIGKILL after a grace period) and remove it',
  builder: (y) =>
    withSocket(y)
      .positional('session', { type: 'string', demandOption: true, describe: 'session name or ID' })
      .option('signal', {
        alias: 's',
        type: 'string',
        requiresArg: true,
        describe: 'signal to send first (default HUP)',
      })
      .option('keep', {
        type: 'boolean',
        describe: 'keep the exited session (and its turns) in the table',
      }) as never,
  handler: async (argv) => {
    const signal = argv.signal ? normalizeSignal(argv.signal) : undefined;
    const { worktree_kept: kept } = await withClient(argv, (c) =>
      c.request('kill', {
        session: argv.session,
        ...(signal ? { signal } : {}),
        remove: !argv.keep,
      }),
    );
    if (kept) {
      process.stderr.write(
        `clippy: ${argv.session} stays listed (exited): its worktree ${kept} is kept, as kill never removes one (clippy diff ${argv.session}, then clippy rm ${argv.session})\n`,
      );
    }
  },
};

export default command;

import type { CommandModule } from 'yargs';
import { BrokerError } from '@clippy/protocol';
import { resolveDetachKey } from '../attach/config.js';
import { printOrAttach } from '../attach/print-or-attach.js';
import { connectForCommand, withSocket, type CommonArgs } from '../connect.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';

interface ReviveArgs extends CommonArgs {
  session: string;
  detach?: boolean;
  'detach-key'?: string;
  json?: boolean;
}

/**
 * `clippy revive NAME`: an exited agent session (`clippy ls -a` says which can) starts again
 * where it left off: its agent resumes the conversation (`claude --resume ID`, `codex resume
 * ID`, `gemini --resume ID`) in the same folder, with the same name and preset; its turns and
 * their numbering go on. Then it attaches, as `new` does.
 */
const command: CommandModule<object, ReviveArgs> = {
  command: 'revive <session>',
  describe: "Start an exited agent session again where it left off (its agent's resume)",
  builder: (y) =>
    withSocket(y)
      .positional('session', { type: 'string', demandOption: true, describe: 'session name or ID' })
      .option('detach', {
        alias: 'd',
        type: 'boolean',
        describe: 'do not attach: print the session name and ID',
      })
      .option('detach-key', {
        type: 'string',
        requiresArg: true,
        describe: 'key that detaches (default ctrl-])',
      })
      .option('json', {
        type: 'boolean',
        describe: 'with -d: print {session, name, pid, command, args} as JSON',
      }) as never,
  handler: async (argv) => {
    let detachKey;
    if (!argv.detach) {
      try {
        detachKey = resolveDetachKey(argv['detach-key']);
      } catch (err) {
        throw new CliError((err as Error).message, EXIT.usage);
      }
    }
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    const cols = process.stdout.isTTY ? process.stdout.columns : undefined;
    const rows = process.stdout.isTTY ? process.stdout.rows : undefined;
    const { client, remote } = await connectForCommand(argv);
    let attached = false;
    try {
      let revived;
      try {
        revived = await client.request('revive', {
          session: argv.session,
          env,
          ...(cols ? { cols } : {}),
          ...(rows ? { rows } : {}),
        });
      } catch (err) {
        if (err instanceof BrokerError && err.code === 'not_revivable')
          throw new CliError(err.message, EXIT.usage);
        throw err;
      }
      attached = await printOrAttach(client, revived, {
        detach: argv.detach === true,
        json: argv.json === true,
        detachKey,
        remote,
      });
    } finally {
      if (!attached) await client.close();
    }
  },
};

export default command;

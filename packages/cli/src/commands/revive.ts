import type { CommandModule } from 'yargs';
import { BrokerError } from '@clippy/protocol';
import {
  DETACH_KEY_OPTION,
  DETACH_OPTION,
  beforeStart,
  callerEnvironment,
  startThenAttach,
  terminalSize,
  type StartArgs,
} from '../attach/start-session.js';
import { withSocket } from '../connect.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';

/**
 * `clippy revive NAME`: an exited agent session (`clippy ls -a` says which can) starts again
 * where it left off: its agent resumes the conversation (`claude --resume ID`, `codex resume
 * ID`, `gemini --resume ID`) in the same folder, with the same name and preset; its turns and
 * their numbering go on. Then it attaches, as `new` does (and is refused, as `new` is, where
 * it could not attach).
 */
const command: CommandModule<object, StartArgs & { session: string }> = {
  command: 'revive <session>',
  describe: "Start an exited agent session again where it left off (its agent's resume)",
  builder: (y) =>
    withSocket(y)
      .positional('session', { type: 'string', demandOption: true, describe: 'session name or ID' })
      .option('detach', DETACH_OPTION)
      .option('detach-key', DETACH_KEY_OPTION)
      .option('json', {
        type: 'boolean',
        describe: 'with -d: print {session, name, pid, command, args} as JSON',
      }) as never,
  handler: async (argv) => {
    const detachKey = beforeStart(argv, 'revive');
    const env = callerEnvironment();
    await startThenAttach(argv, detachKey, async (client) => {
      try {
        return await client.request('revive', { session: argv.session, env, ...terminalSize() });
      } catch (err) {
        if (err instanceof BrokerError && err.code === 'not_revivable')
          throw new CliError(err.message, EXIT.usage);
        throw err;
      }
    });
  },
};

export default command;

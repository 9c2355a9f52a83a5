import type { CommandModule } from 'yargs';
import type { SessionInfo } from '@clippy/protocol';
import { withClient, withSocket, type CommonArgs } from '../connect.js';
import { formatAge, renderTable } from '../table.js';

interface LsArgs extends CommonArgs {
  json?: boolean;
  all?: boolean;
}

/** What STATE shows: the detector's state, or `exited(code)` / `exited(SIGNAL)`. */
export function stateLabel(s: SessionInfo): string {
  if (s.state !== 'exited') return s.state;
  return `exited(${s.exit_code ?? s.exit_signal ?? '?'})`;
}

/** `clippy ls`: the session table. */
const command: CommandModule<object, LsArgs> = {
  command: 'ls',
  aliases: ['list'],
  describe: 'List sessions (live ones; -a adds exited ones)',
  builder: (y) =>
    withSocket(y)
      .option('json', {
        type: 'boolean',
        describe: 'print {"sessions": [...]} as JSON (protocol fields)',
      })
      .option('all', { alias: 'a', type: 'boolean', describe: 'include exited sessions' }) as never,
  handler: async (argv) => {
    const { sessions } = await withClient(argv, (c) => c.request('list_sessions', {}));
    const shown = argv.all ? sessions : sessions.filter((s) => s.state !== 'exited');
    if (argv.json) {
      process.stdout.write(`${JSON.stringify({ sessions: shown }, null, 2)}\n`);
      return;
    }
    if (shown.length === 0) {
      process.stderr.write(
        sessions.length > 0
          ? 'no live sessions (clippy ls -a shows exited ones)\n'
          : 'no sessions\n',
      );
      return;
    }
    const now = Date.now();
    process.stdout.write(
      renderTable(
        [
          { header: 'NAME' },
          { header: 'ID' },
          { header: 'STATE' },
          { header: 'TURNS', right: true },
          { header: 'PID', right: true },
          { header: 'AGE', right: true },
          { header: 'COMMAND', max: 40 },
          { header: 'CLIENTS', right: true },
        ],
        shown.map((s) => [
          s.name,
          s.session,
          stateLabel(s),
          String(s.turn_count),
          String(s.pid),
          formatAge(now - s.created_at),
          [s.command, ...s.args].join(' '),
          String(s.clients),
        ]),
      ),
    );
    // The session runs on without turns: say why, once per session, beside the table.
    for (const s of shown)
      if (s.detection_stopped) process.stderr.write(`clippy: ${s.name}: ${s.detection_stopped}\n`);
  },
};

export default command;

import { Readable, Writable } from 'node:stream';
import type { CommandModule } from 'yargs';
import { cliVersion } from '../cli-version.js';
import { connectForCommand, withSocket, type CommonArgs } from '../connect.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { loadPackage } from '../load-module.js';
import { resolveSessionTerm } from '../session-term.js';

interface AcpArgs extends CommonArgs {
  session?: string;
  preset?: string;
  term?: string;
  'agent-channel'?: boolean;
  command?: string[];
}

/**
 * `clippy acp`: any terminal agent as an Agent Client Protocol agent, for editors that speak ACP
 * (Zed, JetBrains IDEs, Neovim plugins). The editor starts it and talks JSON-RPC on its stdin and
 * stdout (docs/acp.md); nothing else is written to stdout.
 */
const command: CommandModule<object, AcpArgs> = {
  command: 'acp [command..]',
  describe: 'Serve a terminal agent to an ACP editor (Zed, JetBrains, Neovim) on stdin/stdout',
  builder: (y) =>
    withSocket(y)
      .usage(
        '$0 acp [--preset P] [-- COMMAND ARGS...]\n$0 acp --session NAME\n\n' +
          'Speaks the Agent Client Protocol on stdin/stdout: an editor runs it as an agent server.\n' +
          "Each editor session starts COMMAND (default: $SHELL) in a new clippy session in the editor's\n" +
          'directory, or, with --session, runs in an existing one. Either way the session is clippy’s:\n' +
          '`clippy ls` lists it, `clippy attach` shows it. See docs/acp.md for editor settings.',
      )
      .positional('command', {
        type: 'string',
        array: true,
        describe: 'the agent and its arguments (after --)',
      })
      .option('session', {
        type: 'string',
        requiresArg: true,
        describe: 'run every editor session in this existing clippy session (name or ID)',
      })
      .option('preset', {
        type: 'string',
        requiresArg: true,
        describe: 'turn preset of the sessions it starts (claude, aider, codex, shell, ...)',
      })
      .option('term', {
        type: 'string',
        requiresArg: true,
        describe: 'the TERM of the sessions it starts (default: as clippy new)',
      })
      .option('agent-channel', {
        type: 'boolean',
        describe:
          "read the agent's own record of its turns, its exact Markdown answer, in the sessions it starts (default: as clippy new; --no-agent-channel: the screen's text only)",
      })
      .conflicts('session', ['preset', 'term', 'agent-channel'])
      .parserConfiguration({ 'populate--': true }) as never,
  handler: async (argv) => {
    const dashDash =
      ((argv as unknown as Record<string, unknown>)['--'] as string[] | undefined) ?? [];
    const words = [...(argv.command ?? []), ...dashDash].map(String);
    if (argv.session && words.length > 0) {
      throw new CliError(
        '--session runs the editor in an existing session: it takes no command',
        EXIT.usage,
      );
    }
    // The ACP server (and its SDK) loads here, not with the command table: `clippy --help`
    // and the bundled CLI (dist/cli.cjs) need only this module's description of the command.
    const { serveAcp, stdioStream } =
      await loadPackage<typeof import('@clippy/acp')>('@clippy/acp');
    const [cmd, ...args] = words.length > 0 ? words : [process.env.SHELL || '/bin/sh'];
    const env: Record<string, string> = {};
    for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
    // The editor's environment, but TERM: the session is a terminal's (as with clippy new).
    env.TERM = resolveSessionTerm(argv.term);
    // Connected before the editor's first message: a daemon that cannot be reached is reported
    // on stderr at once, where the editor shows an agent server's errors.
    const { client } = await connectForCommand(argv);
    let end;
    try {
      end = await serveAcp(
        client,
        stdioStream(
          Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
          Writable.toWeb(process.stdout),
        ),
        {
          version: cliVersion(),
          ...(argv.session
            ? { session: argv.session }
            : {
                agent: {
                  command: cmd!,
                  args,
                  env,
                  ...(argv.preset ? { preset: argv.preset } : {}),
                  ...(argv['agent-channel'] !== undefined
                    ? { agentChannel: argv['agent-channel'] }
                    : {}),
                },
              }),
        },
      );
    } finally {
      await client.close();
    }
    // The editor sees the agent server stop; stderr says why.
    if (end.by === 'daemon') throw new CliError(end.message, EXIT.noBroker);
  },
};

export default command;

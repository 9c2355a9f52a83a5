import { realpathSync } from 'node:fs';
import {
  AGENT_TITLES,
  MCP_AGENTS,
  registrationCommand,
  type McpAgent,
} from '@clippy/mcp/registration';
import type { ClippyClient } from '@clippy/client/lean';
import type { Argv, CommandModule } from 'yargs';
import { cliVersion } from '../cli-version.js';
import { connectForCommand, withSocket, type CommonArgs } from '../connect.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { parentMap, parentOf } from '../focus/process-tree.js';
import { loadPackage } from '../load-module.js';
import { resolveSessionTerm } from '../session-term.js';

interface McpArgs extends CommonArgs {
  'read-only'?: boolean;
  sessions?: string;
}

interface ConfigArgs extends McpArgs {
  agent?: string;
  name?: string;
  absolute?: boolean;
  json?: boolean;
}

/** Ancestors looked through for the caller's session: far more than any agent's process tree. */
const MAX_ANCESTORS = 64;

/** `--sessions A,B` as names (or IDs); undefined when not given. */
function sessionList(given: string | undefined): string[] | undefined {
  if (given === undefined) return undefined;
  const names = given
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean);
  if (names.length === 0)
    throw new CliError('--sessions wants session names or IDs, comma-separated (A,B)', EXIT.usage);
  return names;
}

/** `clippy mcp`'s own options, to pass on in a registration. */
function serverArgs(argv: McpArgs): string[] {
  const sessions = sessionList(argv.sessions);
  return [
    ...(argv['read-only'] ? ['--read-only'] : []),
    ...(sessions ? ['--sessions', sessions.join(',')] : []),
    ...(argv.socket ? ['--socket', argv.socket] : []),
    ...(argv.host ? ['--host', argv.host] : []),
  ];
}

/**
 * The session of the agent running this server: its CLIPPY_SESSION_ID (the daemon sets it in
 * every session), else the session whose process this one runs under (an agent that clears its
 * MCP servers' environment, as Codex does). Undefined when it runs in none (a terminal).
 */
async function callerSession(client: ClippyClient, remote: boolean): Promise<string | undefined> {
  const own = process.env.CLIPPY_SESSION_ID;
  if (own) return own;
  // Another machine's sessions have no process here.
  if (remote) return undefined;
  // /proc/PID/stat per ancestor on Linux; elsewhere one `ps` listing of every process.
  let all: Map<number, number> | undefined;
  const parent = async (pid: number) =>
    (await parentOf(pid)) ??
    (all ??= await parentMap().catch(() => new Map<number, number>())).get(pid);
  const ancestors: number[] = [];
  for (let pid: number | undefined = process.ppid; pid !== undefined && pid > 1;) {
    if (ancestors.includes(pid) || ancestors.length >= MAX_ANCESTORS) break;
    ancestors.push(pid);
    pid = await parent(pid);
  }
  const { sessions } = await client.request('list_sessions', {});
  for (const pid of ancestors) {
    const s = sessions.find((x) => x.pid === pid && x.kind === 'pty' && x.state !== 'exited');
    if (s) return s.session;
  }
  return undefined;
}

/** `clippy mcp`: serve MCP on stdin/stdout until the agent closes stdin. */
async function serve(argv: McpArgs): Promise<void> {
  const sessions = sessionList(argv.sessions);
  // Run by a person at a terminal: it waits for an agent's JSON-RPC, which it says (on stderr).
  if (process.stdin.isTTY)
    process.stderr.write(
      'clippy mcp: serving MCP on stdin/stdout for an agent (Ctrl-D ends it). ' +
        'To register it with one: clippy mcp config AGENT\n',
    );
  // The MCP server (and its SDK) loads here, not with the command table: `clippy --help` and
  // `clippy mcp config` need none of it.
  const { serveMcp } = await loadPackage<typeof import('@clippy/mcp')>('@clippy/mcp');
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries(process.env)) if (v !== undefined) env[k] = v;
  // The agent's environment, but TERM: a new session is a terminal's (as with clippy new).
  env.TERM = resolveSessionTerm(undefined);
  // Connected before the agent's first message: a daemon that cannot be reached is reported on
  // stderr at once, where agents show an MCP server's errors.
  const { client, remote } = await connectForCommand(argv);
  let end;
  try {
    const self = await callerSession(client, remote);
    end = await serveMcp(
      client,
      { input: process.stdin, output: process.stdout },
      {
        readOnly: argv['read-only'] ?? false,
        ...(sessions ? { sessions } : {}),
        ...(self ? { self } : {}),
        env,
        cwd: process.cwd(),
        version: cliVersion(),
      },
    );
  } finally {
    await client.close();
  }
  // The agent sees its server stop; stderr says why.
  if (end.by === 'daemon') throw new CliError(end.message, EXIT.noBroker);
}

/** `clippy mcp config [AGENT]`: print the command that registers `clippy mcp` with an agent. */
function config(argv: ConfigArgs): void {
  let agents: McpAgent[] = [...MCP_AGENTS];
  if (argv.agent !== undefined) {
    const agent = argv.agent.toLowerCase();
    if (!(MCP_AGENTS as readonly string[]).includes(agent))
      throw new CliError(
        `unknown agent '${argv.agent}': clippy knows ${MCP_AGENTS.join(', ')}`,
        EXIT.usage,
      );
    agents = [agent as McpAgent];
  }
  const options = {
    ...(argv.name ? { name: argv.name } : {}),
    // This clippy, wherever the agent's PATH leads: for agents started outside a shell.
    ...(argv.absolute ? { command: realpathSync(process.argv[1]!) } : {}),
    args: serverArgs(argv),
    env: process.env,
  };
  const lines = agents.map((agent) => ({
    agent,
    title: AGENT_TITLES[agent],
    command: registrationCommand(agent, options),
  }));
  if (argv.json) {
    process.stdout.write(`${JSON.stringify(argv.agent ? lines[0] : lines, null, 2)}\n`);
    return;
  }
  const text =
    argv.agent !== undefined
      ? lines[0]!.command
      : lines.map((l) => `# ${l.title}\n${l.command}`).join('\n');
  process.stdout.write(`${text}\n`);
}

/** The options `clippy mcp` takes, and passes on in a registration. */
function withServerOptions<T>(y: Argv<T>): Argv<T & McpArgs> {
  return withSocket(y)
    .option('read-only', {
      type: 'boolean',
      describe: 'offer only the tools that change nothing: list_sessions, wait, read_turn, diff',
    })
    .option('sessions', {
      type: 'string',
      requiresArg: true,
      describe: 'let the tools touch only these sessions (names or IDs, comma-separated)',
    }) as Argv<T & McpArgs>;
}

/**
 * `clippy mcp`: clippy's sessions as MCP tools for the agents themselves (ask another agent and
 * get its exact answer). An agent starts it and talks JSON-RPC on its stdin and stdout
 * (docs/mcp.md); nothing else is written to stdout.
 */
const command: CommandModule<object, McpArgs> = {
  command: 'mcp',
  describe:
    "Serve clippy's sessions as MCP tools to an agent (stdin/stdout); config: how to register it",
  builder: (y) =>
    withServerOptions(y)
      .usage(
        '$0 mcp [--read-only] [--sessions A,B]\n$0 mcp config [AGENT] [--read-only] [--sessions A,B]\n\n' +
          'Speaks the Model Context Protocol on stdin/stdout: an agent (Claude Code, Codex, Gemini CLI,\n' +
          'Qwen Code, OpenCode, Copilot CLI) runs it as an MCP server and can then list clippy’s sessions,\n' +
          'ask one of them and get its exact answer, send, wait, read turns, relay, start and end sessions.\n' +
          '`clippy mcp config AGENT` prints the one command that registers it with AGENT. See docs/mcp.md.',
      )
      .command({
        command: 'config [agent]',
        describe: `Print the command that registers clippy mcp with AGENT (${MCP_AGENTS.join(', ')}; default: all)`,
        builder: (c: Argv) =>
          withServerOptions(c)
            .positional('agent', { type: 'string', describe: MCP_AGENTS.join(', ') })
            .option('name', {
              type: 'string',
              requiresArg: true,
              describe: "the server's name in the agent's configuration (default clippy)",
            })
            .option('absolute', {
              type: 'boolean',
              describe: 'name this clippy by its absolute path (for agents whose PATH lacks it)',
            })
            .option('json', { type: 'boolean', describe: 'print as JSON' }),
        handler: (a) => config(a as ConfigArgs),
      })
      .strictCommands() as never,
  handler: (argv) => serve(argv),
};

export default command;

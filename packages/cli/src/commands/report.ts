import { writeFileSync } from 'node:fs';
import type { CommandModule } from 'yargs';
import type { ClippyClient } from '@clippy/client';
import type { SessionInfo, Turn } from '@clippy/protocol';
import {
  renderExecutionReport,
  serializeRunReport,
  sessionExecutionReport,
  sessionRunReport,
  type SessionRunReportInput,
} from '@clippy/reports';
import { BUILTIN_PRESETS } from '@clippy/turns';
import { withClient, withSocket, type CommonArgs } from '../connect.js';
import { CliError } from '../errors.js';
import { deliverReport } from '../report-delivery.js';
import { tipLimits, withTipOptions, type TipArgs } from '../report-tip.js';
import { turnCall } from '../turn-exits.js';

interface ReportArgs extends CommonArgs, TipArgs {
  session: string;
  report?: string;
  markdown?: boolean;
  'execution-report'?: string;
  copy?: boolean;
}

/** Reads a session and all its stored turns (oldest first) from the broker. */
async function readSession(client: ClippyClient, ref: string): Promise<SessionRunReportInput> {
  const { sessions } = await client.request('list_sessions', {});
  const info: SessionInfo | undefined =
    sessions.find((s) => s.session === ref) ?? sessions.find((s) => s.name === ref);
  if (!info) throw new CliError(`no session named or with ID '${ref}' (see 'clippy ls')`);
  const { turns } = await turnCall(() => client.request('list_turns', { session: info.session }));
  const full: Turn[] = [];
  for (const meta of turns) {
    const { turn } = await turnCall(() => client.request('get_turn', { turn_id: meta.turn_id }));
    full.push(turn);
  }
  full.sort((a, b) => a.seq - b.seq);
  const preset = BUILTIN_PRESETS[info.preset];
  const known = (v: string | undefined) => (v && v !== 'unknown' ? v : undefined);
  // The agent's own name for its model (its channel reported it) when the preset cannot know.
  const model = known(preset?.model) ?? info.model;
  const provider = known(preset?.provider);
  return {
    session: {
      id: info.session,
      name: info.name,
      command: [info.command, ...info.args],
      cwd: info.cwd,
      preset: info.preset,
      ...(model ? { model } : {}),
      ...(provider ? { provider } : {}),
      createdAt: info.created_at,
      exitedAt: info.exited_at ?? null,
      exitCode: info.exit_code ?? null,
      state: info.state,
    },
    turns: full.map((t) => ({
      turn_id: t.turn_id,
      timestamp: t.timestamp,
      duration_ms: t.duration_ms,
      byte_length: t.byte_length,
      interrupted: t.interrupted,
      truncated: t.truncated,
      prompt: t.prompt,
      text: t.text,
      ...(t.agent ? { agent: t.agent } : {}),
    })),
  };
}

/** `clippy report SESSION`: a run report (JSON) or an Execution Report (Markdown) of a session. */
const command: CommandModule<object, ReportArgs> = {
  command: 'report <session>',
  describe: 'Write a run report (JSON) or an Execution Report (Markdown) of an agent session',
  builder: (y) =>
    withTipOptions(withSocket(y))
      .positional('session', { type: 'string', demandOption: true, describe: 'session name or ID' })
      .option('report', {
        type: 'string',
        requiresArg: true,
        describe: 'write the JSON run report to FILE (stdout gets nothing)',
      })
      .option('markdown', {
        type: 'boolean',
        describe:
          'print the Execution Report (Markdown) and hand it to the clipboard and relay buffer',
      })
      .option('execution-report', {
        type: 'string',
        requiresArg: true,
        describe: 'also write the Execution Report to FILE',
      })
      .option('copy', {
        type: 'boolean',
        default: true,
        describe: 'copy the Execution Report to the clipboard and relay buffer (--no-copy to skip)',
      })
      .example('$0 report claude --report claude.json', 'run report of the session "claude"')
      .example('$0 report aider --markdown', 'Execution Report, ready for `clippy paste`') as never,
  handler: async (argv) => {
    await withClient(argv, async (client) => {
      const input = await readSession(client, argv.session);
      const wantsMarkdown = argv.markdown || argv['execution-report'] !== undefined;
      if (argv.report || !wantsMarkdown) {
        const json = serializeRunReport(sessionRunReport(input));
        if (argv.report) writeFile(argv.report, json);
        else process.stdout.write(json);
      }
      if (!wantsMarkdown) return;
      const markdown = renderExecutionReport(sessionExecutionReport(input), tipLimits(argv));
      if (argv['execution-report']) writeFile(argv['execution-report'], markdown);
      if (argv.markdown) process.stdout.write(markdown);
      const delivered = await deliverReport(markdown, argv, { client, label: 'report' });
      for (const w of delivered.warnings) process.stderr.write(`clippy: ${w}\n`);
    });
  },
};

function writeFile(path: string, text: string): void {
  try {
    writeFileSync(path, text);
  } catch (err) {
    throw new CliError(`cannot write ${path}: ${(err as Error).message}`);
  }
}

export default command;

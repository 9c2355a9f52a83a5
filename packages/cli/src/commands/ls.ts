import type { CommandModule } from 'yargs';
import { MIN_READABLE_COLS, formatCost, type RouteInfo, type SessionInfo } from '@clippy/protocol';
import { changesSummary } from '@clippy/system/git';
import { withClient, withSocket, type CommonArgs } from '../connect.js';
import { EXIT } from '../exit-codes.js';
import { formatAge, renderTable } from '../table.js';
import { loadModule } from '../load-module.js';

interface LsArgs extends CommonArgs {
  json?: boolean;
  all?: boolean;
  'all-hosts'?: boolean;
}

/**
 * What STATE shows: the detector's state, or `exited(code)` / `exited(SIGNAL)`. A finished
 * answer nobody has read yet shows (`idle, 1 unread`: not the same as idle and never asked), and
 * a terminal too narrow to read says so: its state is a guess.
 */
export function stateLabel(s: SessionInfo): string {
  if (s.state !== 'exited') {
    const notes: string[] = [];
    if (s.unread) notes.push(`${s.unread} unread`);
    if (s.cols < MIN_READABLE_COLS) notes.push(`${s.cols} cols: too narrow to read`);
    return notes.length > 0 ? `${s.state}, ${notes.join(', ')}` : s.state;
  }
  // Restored from the history after a daemon restart: its process was not re-attached.
  const restored = s.restored ? ' restored' : '';
  // It ran when its daemon ended, and ended with it: no exit status was recorded.
  if (s.ended_with_daemon) return `exited(with daemon)${restored}`;
  return `exited(${s.exit_code ?? s.exit_signal ?? '?'})${restored}`;
}

/** Tokens in/out as the agent counted them (`12.3k/1.2k`), `-` when it did not say. */
export function tokenLabel(s: { input_tokens?: number; output_tokens?: number }): string {
  if (s.input_tokens === undefined && s.output_tokens === undefined) return '-';
  const k = (n: number | undefined) =>
    n === undefined ? '?' : n >= 1000 ? `${(n / 1000).toFixed(1)}k` : String(n);
  return `${k(s.input_tokens)}/${k(s.output_tokens)}`;
}

/**
 * What its tokens cost (`$0.12`): with turns whose model has no price, `$0.12+?`, or `no price`
 * when none has one (never a cost of nothing); `-` when its agent reported no tokens.
 */
export function costLabel(s: { cost_usd?: number; cost_unknown?: string }): string {
  if (s.cost_usd === undefined) return s.cost_unknown ? 'no price' : '-';
  return s.cost_unknown ? `${formatCost(s.cost_usd)}+?` : formatCost(s.cost_usd);
}

/**
 * Where a session's live routes go: `→codex`, a paused one `→codex(paused)`, one stopped because
 * its target did not take a message `→codex(failed)` (`route ls` says why); `-` for none.
 */
function routesFrom(routes: RouteInfo[], session: string): string {
  const out = routes
    .filter((r) => r.state !== 'ended' && r.from.some((f) => f.session === session))
    .map((r) => `→${r.to.name}${r.failed ? '(failed)' : r.state === 'paused' ? '(paused)' : ''}`);
  return out.length > 0 ? out.join(',') : '-';
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
      .option('all', { alias: 'a', type: 'boolean', describe: 'include exited sessions' })
      .option('all-hosts', {
        type: 'boolean',
        describe: "every host's sessions in one table: this machine and the config file's hosts",
      }) as never,
  handler: async (argv) => {
    if (argv['all-hosts']) return listAllHosts(argv);
    const { sessions, routes, history_unavailable } = await withClient(argv, async (c) => ({
      ...(await c.request('list_sessions', {})),
      routes: (await c.request('list_routes', {})).routes,
    }));
    const shown = argv.all ? sessions : sessions.filter((s) => s.state !== 'exited');
    if (argv.json) {
      const out = { sessions: shown, ...(history_unavailable ? { history_unavailable } : {}) };
      process.stdout.write(`${JSON.stringify(out, null, 2)}\n`);
      return;
    }
    // Persisted sessions are missing, and new ones cannot be persisted: said before the table.
    if (history_unavailable)
      process.stderr.write(
        `clippy: the turn history is unavailable (${history_unavailable}): persisted sessions are not listed and --persist is refused (clippy daemon status)\n`,
      );
    if (shown.length === 0) {
      process.stderr.write(
        sessions.length > 0
          ? 'no live sessions (clippy ls -a shows exited ones)\n'
          : 'no sessions\n',
      );
      return;
    }
    const now = Date.now();
    // Sessions in worktrees of their own: their branch and how much they changed.
    const worktrees = shown.some((s) => s.worktree);
    // TOKENS and COST only when an agent reported them (its channel): blank columns say nothing.
    const tokens = shown.some((s) => s.input_tokens !== undefined || s.output_tokens !== undefined);
    const cost = shown.some((s) => s.cost_usd !== undefined || s.cost_unknown !== undefined);
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
          { header: 'ROUTES', max: 30 },
          ...(worktrees ? [{ header: 'BRANCH', max: 40 }, { header: 'CHANGES' }] : []),
          ...(tokens ? [{ header: 'TOKENS', right: true }] : []),
          ...(cost ? [{ header: 'COST', right: true }] : []),
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
          routesFrom(routes, s.session),
          ...(worktrees
            ? [s.worktree?.branch ?? '-', s.worktree ? changesSummary(s.worktree.changes) : '-']
            : []),
          ...(tokens ? [tokenLabel(s)] : []),
          ...(cost ? [costLabel(s)] : []),
        ]),
      ),
    );
    // The session runs on without turns: say why, once per session, beside the table.
    for (const s of shown)
      if (s.detection_stopped) process.stderr.write(`clippy: ${s.name}: ${s.detection_stopped}\n`);
    for (const s of shown)
      if (s.revivable)
        process.stderr.write(
          `clippy: ${s.name}: its ${s.agent ?? 'agent'} conversation can go on: clippy revive ${s.name}\n`,
        );
  },
};

/**
 * `ls --all-hosts`: one table with a HOST column. A host that cannot be reached is named on
 * stderr with its reason, the others are still listed, and the exit status says it (69).
 */
async function listAllHosts(argv: LsArgs): Promise<void> {
  // Loaded here: the hosts come from the config file, which plain `ls` does not read.
  const { allHosts, onEachHost } =
    await loadModule<typeof import('../remote/each-host.js')>('remote/each-host.js');
  const outcomes = await onEachHost(allHosts(process.env), async (c) => {
    const { sessions } = await c.request('list_sessions', {});
    return argv.all ? sessions : sessions.filter((s) => s.state !== 'exited');
  });
  const failed = outcomes.filter((o) => !o.ok);
  if (failed.length > 0) process.exitCode = EXIT.noBroker;
  if (argv.json) {
    const hosts = outcomes.map((o) =>
      o.ok ? { host: o.label, sessions: o.value } : { host: o.label, error: o.error },
    );
    process.stdout.write(`${JSON.stringify({ hosts }, null, 2)}\n`);
    return;
  }
  for (const o of failed) if (!o.ok) process.stderr.write(`clippy: host ${o.label}: ${o.error}\n`);
  const now = Date.now();
  const rows = outcomes.flatMap((o) =>
    o.ok
      ? o.value.map((s) => [
          o.label,
          s.name,
          s.session,
          stateLabel(s),
          String(s.turn_count),
          String(s.pid),
          formatAge(now - s.created_at),
          [s.command, ...s.args].join(' '),
        ])
      : [],
  );
  if (rows.length === 0) {
    process.stderr.write('no sessions on any host\n');
    return;
  }
  process.stdout.write(
    renderTable(
      [
        { header: 'HOST' },
        { header: 'NAME' },
        { header: 'ID' },
        { header: 'STATE' },
        { header: 'TURNS', right: true },
        { header: 'PID', right: true },
        { header: 'AGE', right: true },
        { header: 'COMMAND', max: 40 },
      ],
      rows,
    ),
  );
}

export default command;

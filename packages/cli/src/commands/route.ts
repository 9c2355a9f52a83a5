import { MAX_ROUTE_HOP_LIMIT } from '@clippy/protocol';
import type { Argv, CommandModule } from 'yargs';
import { withClient, withSocket, type CommonArgs } from '../connect.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import { intOption } from '../int-option.js';
import { addedLine, logLine, routeCall, routesTable } from '../routes/route-output.js';

/** The most entries `route_log` returns (its schema's bound). */
const MAX_ROUTE_LOG_ENTRIES = 10_000;

interface RouteArgs extends CommonArgs {
  from?: string;
  sources?: string;
  to?: string;
  route?: string;
  name?: string;
  template?: string;
  wrap?: string;
  when?: string;
  'skip-interrupted'?: boolean;
  'hop-limit'?: number;
  json?: boolean;
  follow?: boolean;
  limit?: number;
}

/** The options `add` and `fan-in` share. */
function withRouteOptions(y: Argv): Argv {
  return withSocket(y)
    .option('name', {
      type: 'string',
      requiresArg: true,
      describe: 'route name (default r1, r2, …)',
    })
    .option('template', {
      type: 'string',
      requiresArg: true,
      describe: 'plain, review, implement, synthesize, or a file in ~/.config/clippy/templates/',
    })
    .option('wrap', { type: 'string', requiresArg: true, describe: 'a line put before the turn' })
    .option('when', {
      type: 'string',
      requiresArg: true,
      describe: 'forward only turns matching RE',
    })
    .option('skip-interrupted', {
      type: 'boolean',
      default: true,
      describe: 'leave interrupted turns out (--no-skip-interrupted forwards them)',
    })
    .option(
      'hop-limit',
      intOption('hop-limit', 'longest chain of automatic hops one turn may set off (default 10)', {
        max: MAX_ROUTE_HOP_LIMIT,
      }),
    )
    .option('json', { type: 'boolean', describe: 'print the route as JSON' })
    .conflicts('template', 'wrap');
}

function routeFields(a: RouteArgs) {
  return {
    ...(a.name !== undefined ? { name: a.name } : {}),
    ...(a.template !== undefined ? { template: a.template } : {}),
    ...(a.wrap !== undefined ? { wrap: a.wrap } : {}),
    ...(a.when !== undefined ? { when: a.when } : {}),
    ...(a['hop-limit'] !== undefined ? { hop_limit: a['hop-limit'] } : {}),
    include_interrupted: a['skip-interrupted'] === false,
  };
}

async function add(a: RouteArgs, from: string[], to: string): Promise<void> {
  // `build:codex`: a name that may carry its machine (docs/remote.md); only then is the
  // config file read and SSH involved.
  const hosted = [...from, to].some((n) => n.includes(':'))
    ? await (
        await import('../remote/cross-host-route.js')
      ).addRouteWithHosts(a.host, from, to, routeFields(a))
    : null;
  const { route } = hosted
    ? { route: hosted }
    : await withClient(a, (c) =>
        routeCall(() => c.request('add_route', { from, to: to, ...routeFields(a) })),
      );
  process.stdout.write(
    a.json ? `${JSON.stringify({ route }, null, 2)}\n` : `${addedLine(route)}\n`,
  );
}

async function ls(a: RouteArgs): Promise<void> {
  const { routes } = await withClient(a, (c) => c.request('list_routes', {}));
  if (a.json) process.stdout.write(`${JSON.stringify({ routes }, null, 2)}\n`);
  else if (routes.length === 0) process.stderr.write('no routes\n');
  else process.stdout.write(routesTable(routes));
}

async function change(
  a: RouteArgs,
  type: 'remove_route' | 'pause_route' | 'resume_route',
): Promise<void> {
  const route = a.route!;
  const result = await withClient(a, (c) => routeCall(() => c.request(type, { route })));
  if (a.json) {
    process.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return;
  }
  const names = 'removed' in result ? result.removed : result.routes.map((r) => r.route);
  const verb = type === 'remove_route' ? 'removed' : type === 'pause_route' ? 'paused' : 'resumed';
  process.stdout.write(`${verb} ${names.join(', ')}\n`);
}

async function log(a: RouteArgs): Promise<void> {
  await withClient(a, async (c) => {
    const print = (entry: Parameters<typeof logLine>[0]) =>
      process.stdout.write(a.json ? `${JSON.stringify(entry)}\n` : `${logLine(entry)}\n`);
    if (a.follow) {
      // Subscribed before the backlog is read: nothing falls between the two.
      const wanted = a.route;
      // A loop's entries come under its name and its legs' (`loop1`, `loop1.a`, `loop1.b`).
      c.on('route_event', (p) => {
        if (!wanted || p.entry.route === wanted || p.entry.route.startsWith(`${wanted}.`))
          print(p.entry);
      });
      await c.request('subscribe', { events: ['route_event'] });
      // Following a route not added yet is fine: its entries print when they come.
      const entries = await c
        .request('route_log', { ...(wanted ? { route: wanted } : {}), limit: a.limit ?? 20 })
        .then(
          (r) => r.entries,
          (err: unknown) => {
            if ((err as { code?: string }).code === 'route_not_found') return [];
            throw err;
          },
        );
      for (const e of entries) print(e);
      await new Promise<void>((resolve) => {
        process.once('SIGINT', resolve);
        process.once('SIGTERM', resolve);
        void c.closed.then(() => resolve());
      });
      return;
    }
    const { entries } = await routeCall(() =>
      c.request('route_log', {
        ...(a.route ? { route: a.route } : {}),
        ...(a.limit !== undefined ? { limit: a.limit } : {}),
      }),
    );
    if (a.json) process.stdout.write(`${JSON.stringify({ entries }, null, 2)}\n`);
    else if (entries.length === 0) process.stderr.write('the route log is empty\n');
    else for (const e of entries) print(e);
  });
}

const routeArg = (s: Argv) =>
  withSocket(s)
    .positional('route', { type: 'string', demandOption: true, describe: 'route or loop name' })
    .option('json', { type: 'boolean', describe: 'print the result as JSON' });

/** `clippy route add|fan-in|ls|rm|pause|resume|log`: turns that move by themselves (docs/routes.md). */
const command: CommandModule<object, RouteArgs> = {
  command: 'route',
  describe: 'Forward sessions’ turns into other sessions automatically (see docs/routes.md)',
  builder: (y: Argv) =>
    y
      .command({
        command: 'add <from> <to>',
        describe: 'Inject every turn FROM completes into TO',
        builder: (s: Argv) =>
          withRouteOptions(s)
            .positional('from', { type: 'string', demandOption: true, describe: 'source session' })
            .positional('to', { type: 'string', demandOption: true, describe: 'target session' }),
        handler: (a) => add(a as RouteArgs, [(a as RouteArgs).from!], (a as RouteArgs).to!),
      })
      .command({
        command: 'fan-in <sources> <to>',
        describe: 'Wait for the next turn of each source (A,B,C), then inject them as one message',
        builder: (s: Argv) =>
          withRouteOptions(s)
            .positional('sources', {
              type: 'string',
              demandOption: true,
              describe: 'sources, comma-separated',
            })
            .positional('to', { type: 'string', demandOption: true, describe: 'target session' }),
        handler: (a) => {
          const args = a as RouteArgs;
          const sources = args
            .sources!.split(',')
            .map((x) => x.trim())
            .filter(Boolean);
          if (sources.length < 2) {
            throw new CliError('a fan-in needs two or more sources: A,B[,C…]', EXIT.usage);
          }
          return add(
            {
              ...args,
              template: args.template ?? (args.wrap ? undefined : 'synthesize'),
            } as RouteArgs,
            sources,
            args.to!,
          );
        },
      })
      .command({
        command: 'ls',
        aliases: ['list'],
        describe: 'List routes: what fired, what waits, why one is paused',
        builder: (s: Argv) =>
          withSocket(s).option('json', { type: 'boolean', describe: 'print as JSON' }),
        handler: (a) => ls(a as RouteArgs),
      })
      .command({
        command: 'rm <route>',
        describe: 'Remove a route (a loop: both legs)',
        builder: routeArg,
        handler: (a) => change(a as RouteArgs, 'remove_route'),
      })
      .command({
        command: 'pause <route>',
        describe: 'Stop a route from firing (turns meanwhile are logged as skipped)',
        builder: routeArg,
        handler: (a) => change(a as RouteArgs, 'pause_route'),
      })
      .command({
        command: 'resume <route>',
        describe: 'Let a paused route fire again',
        builder: routeArg,
        handler: (a) => change(a as RouteArgs, 'resume_route'),
      })
      .command({
        command: 'log [route]',
        describe: 'What routes did, and why something did not fire',
        builder: (s: Argv) =>
          withSocket(s)
            .positional('route', { type: 'string', describe: 'one route or loop (default: all)' })
            .option('follow', {
              alias: 'f',
              type: 'boolean',
              describe: 'keep printing new entries',
            })
            .option(
              'limit',
              intOption('limit', 'entries (default 100)', { max: MAX_ROUTE_LOG_ENTRIES }),
            )
            .option('json', { type: 'boolean', describe: 'one JSON object per entry' }),
        handler: (a) => log(a as RouteArgs),
      })
      .demandCommand(1, 'Name an action: add, fan-in, ls, rm, pause, resume or log.') as never,
  handler: () => {},
};

export default command;

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import type { RouteLogEntry } from '@clippy/protocol';
import { spawnAgent, waitState } from '@clippy/testkit/agents/harness';
import { runClippy } from '@clippy/testkit/cli-pty';
import { DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';
import { TestSshd, sshdUnavailable } from '@clippy/testkit/sshd';
import { until } from '@clippy/testkit/until';

// Issue 30, item 5: a cycle of routes across daemons. A route whose source is a session of
// another daemon (`clippy route add build:codex claude`, followed through an SSH forwarding of
// that daemon's socket) reads the hop count the other daemon announced with the turn, so the
// hop limit bounds the cycle as it bounds a local chain: the mirrored routes fire exactly
// `limit` times in all, then the route that would go one further logs why it did not. Before,
// each side started every remote turn at 0 hops and the cycle never ended.

/** How long a cycle of fake-agent turns through two daemons may take on a loaded machine. */
const CYCLE_TIMEOUT_MS = 60_000;
const E2E_TIMEOUT_MS = 180_000;
/** The daemon's default hop limit (docs/routes.md), which the first test leaves in place. */
const DEFAULT_HOP_LIMIT = 10;

/**
 * The route events of a cycle's routes on its daemons, as pushed. It fails the test as soon as
 * the routes fire more than `limit` times in all: the cycle went past its hop limit.
 */
class CycleWatch {
  readonly fired: RouteLogEntry[] = [];
  /** Turns a route did not forward because of its hop limit. */
  readonly stops: RouteLogEntry[] = [];
  /** When the person's message went in, and when the first stop came. */
  startedAt = 0;
  stoppedAt = 0;
  private failure: Error | null = null;
  private readonly offs: (() => void)[];

  private constructor(
    clients: ClippyClient[],
    private readonly routes: string[],
    private readonly limit: number,
  ) {
    this.offs = clients.map((c) => c.on('route_event', ({ entry }) => this.onEntry(entry)));
  }

  static async follow(
    clients: ClippyClient[],
    routes: string[],
    limit: number,
  ): Promise<CycleWatch> {
    const watch = new CycleWatch(clients, routes, limit);
    for (const c of clients) await c.request('subscribe', { events: ['route_event'] });
    return watch;
  }

  private onEntry(entry: RouteLogEntry): void {
    if (!this.routes.includes(entry.route)) return;
    if (entry.event === 'fired') {
      this.fired.push(entry);
      if (this.fired.length > this.limit && !this.failure) {
        const fires = this.fired.map((e) => `${e.route} ${e.turn_ids.join(',')}`).join('; ');
        this.failure = new Error(`the cycle went past its hop limit ${this.limit}: ${fires}`);
      }
    } else if (entry.event === 'skipped' && /^hop limit/u.test(entry.reason ?? '')) {
      if (this.stops.length === 0) this.stoppedAt = Date.now();
      this.stops.push(entry);
    }
  }

  /**
   * Sends the person's message that starts the cycle, then waits until a route stops it at the
   * hop limit after `limit` fires; prints the figures (`label`: which topology).
   */
  async run(label: string, start: () => Promise<unknown>): Promise<void> {
    this.startedAt = Date.now();
    await start();
    await this.until(
      () => this.stops.length > 0 && this.fired.length === this.limit,
      `a stop at the hop limit after ${this.limit} fires`,
    );
    console.log(
      `${label}: ${this.fired.length} fires, stopped ${this.stoppedAt - this.startedAt} ms after the first message`,
    );
  }

  /** Waits for `cond` on what was pushed; throws at once if the cycle went past its limit. */
  async until(cond: () => boolean, what: string): Promise<void> {
    await until(() => this.failure !== null || cond(), what, CYCLE_TIMEOUT_MS);
    this.check();
  }

  /** Throws if the cycle went past its limit at any time so far. */
  check(): void {
    if (this.failure) throw this.failure;
  }

  close(): void {
    for (const off of this.offs) off();
    this.check();
  }
}

const opened: ClippyClient[] = [];
const daemons: TestDaemon[] = [];
afterAll(async () => {
  for (const c of opened.splice(0)) await c.close();
  for (const d of daemons.splice(0)) await d.stop();
});

/** A daemon of its own environment, and a client of it; both stopped after the file. */
async function startDaemon(env?: DaemonEnv): Promise<{ d: TestDaemon; c: ClippyClient }> {
  const d = await TestDaemon.start(env ? { env } : {});
  daemons.push(d);
  const c = await d.connect();
  opened.push(c);
  return { d, c };
}

/** `turn.hops` of each turn of a session, oldest first. */
async function hopsOf(c: ClippyClient, session: string): Promise<(number | undefined)[]> {
  return (await c.request('list_turns', { session })).turns.map((t) => t.hops).reverse();
}

describe('a cycle of routes across daemons', { timeout: E2E_TIMEOUT_MS }, () => {
  // Two daemons: "the laptop's" and "the build box's".
  let laptop: { d: TestDaemon; c: ClippyClient };
  let build: { d: TestDaemon; c: ClippyClient };
  beforeAll(async () => {
    [laptop, build] = await Promise.all([startDaemon(), startDaemon()]);
  }, E2E_TIMEOUT_MS);

  it('two daemons with mirrored routes: the cycle ends at the hop limit, saying why', async () => {
    await spawnAgent(build.d, build.c, 'codex', 'claude', 'claude');
    await spawnAgent(laptop.d, laptop.c, 'claude', 'claude', 'claude');
    // What `clippy route add build:codex claude` asks of the laptop's daemon, with the build
    // daemon's socket itself where the CLI hands over its SSH forwarding; and the mirror.
    await laptop.c.request('add_route', {
      from: ['codex'],
      to: 'claude',
      remote: { socket: build.d.socket, host: 'build' },
      name: 'in',
    });
    await build.c.request('add_route', {
      from: ['claude'],
      to: 'codex',
      remote: { socket: laptop.d.socket, host: 'laptop' },
      name: 'back',
    });
    const watch = await CycleWatch.follow([laptop.c, build.c], ['in', 'back'], DEFAULT_HOP_LIMIT);
    await watch.run('two daemons', () =>
      build.c.request('send', { session: 'codex', text: 'start the cycle', enter: true }),
    );
    // Codex's turns carry 0, 2, 4, … hops: the laptop's route fires on 0 … 8 and stops at 10.
    expect(watch.fired.map((e) => e.route)).toEqual(
      Array.from({ length: DEFAULT_HOP_LIMIT }, (_, i) => (i % 2 === 0 ? 'in' : 'back')),
    );
    expect(watch.stops.map((e) => [e.route, e.reason])).toEqual([
      [
        'in',
        'hop limit 10 reached: this turn came from a chain of 10 automatic injections, counted across daemons (the last by a route on build: routes there and here may feed each other)',
      ],
    ]);
    // The turns say it too: each carries the injections behind it.
    expect(await hopsOf(build.c, 'codex')).toEqual([0, 2, 4, 6, 8, 10]);
    expect(await hopsOf(laptop.c, 'claude')).toEqual([1, 3, 5, 7, 9]);
    // Nothing waits to go round again: both agents are idle, no route holds a message.
    await waitState(build.c, 'codex', 'idle');
    await waitState(laptop.c, 'claude', 'idle');
    for (const [c, route] of [
      [laptop.c, 'in'],
      [build.c, 'back'],
    ] as const) {
      const { routes } = await c.request('list_routes', {});
      const r = routes.find((x) => x.route === route)!;
      expect([r.state, r.fired, r.queued]).toEqual(['active', 5, 0]);
    }
    const log = await laptop.c.request('route_log', { route: 'in' });
    expect(log.entries.map((e) => e.event)).toEqual([
      'added',
      ...Array.from({ length: 5 }, () => 'fired'),
      'skipped',
    ]);
    watch.close();
  });

  it('a daemon whose "remote" is its own socket: the cycle ends at the hop limit', async () => {
    const { d, c } = laptop;
    await spawnAgent(d, c, 'x', 'claude', 'claude');
    await spawnAgent(d, c, 'y', 'claude', 'claude');
    // x → y through the daemon's own socket, y → x as a local route: the local cycle check
    // cannot see that `self:x` is x, the hop counts do.
    await c.request('add_route', {
      from: ['x'],
      to: 'y',
      remote: { socket: d.socket, host: 'self' },
      name: 'via-self',
      hop_limit: 4,
    });
    await c.request('add_route', { from: ['y'], to: 'x', name: 'home', hop_limit: 4 });
    const watch = await CycleWatch.follow([c], ['via-self', 'home'], 4);
    await watch.run('own socket', () =>
      c.request('send', { session: 'x', text: 'go round', enter: true }),
    );
    expect(watch.fired.map((e) => e.route)).toEqual(['via-self', 'home', 'via-self', 'home']);
    expect(watch.stops.map((e) => [e.route, e.reason])).toEqual([
      [
        'via-self',
        'hop limit 4 reached: this turn came from a chain of 4 automatic injections, counted across daemons (the last by a route on self: routes there and here may feed each other)',
      ],
    ]);
    expect(await hopsOf(c, 'x')).toEqual([0, 2, 4]);
    watch.close();
  });
});

// The same through a real sshd, the way `--host` reaches another daemon: two "machines" (two
// runtime dirs, each with its daemon and an sshd whose logins land there), `clippy route add`
// on each naming the other; and a daemon that reaches itself over SSH.
const why = sshdUnavailable();

/** A "machine": its own runtime dir and daemon, and an sshd whose logins land in it. */
interface Machine {
  env: DaemonEnv;
  sshd: TestSshd;
  c: ClippyClient;
  d: TestDaemon;
}

describe.skipIf(why !== null)(
  'a cycle of routes across daemons, through SSH',
  { timeout: E2E_TIMEOUT_MS },
  () => {
    let laptop: Machine;
    let build: Machine;
    beforeAll(async () => {
      // Each machine's keys, sshd and daemon: side by side.
      [laptop, build] = await Promise.all([machine(), machine()]);
      // `build` and `laptop` name each other's sshd, `me` the laptop's own.
      hosts(laptop, { build: build.sshd.alias, me: laptop.sshd.alias });
      hosts(build, { laptop: laptop.sshd.alias });
    }, E2E_TIMEOUT_MS);
    // Before the daemons stop (the file's afterAll): the SSH masters the CLI left (each holds
    // a forwarding; a machine's reach the other's sshd, so each server is asked about each
    // machine), then sshd.
    afterAll(async () => {
      const all = [laptop, build].filter(Boolean);
      for (const m of all) for (const s of all) await s.sshd.stopMasters(m.env.runtimeDir);
      for (const m of all) await m.sshd.stop();
    }, E2E_TIMEOUT_MS);

    async function machine(): Promise<Machine> {
      const env = new DaemonEnv();
      const sshd = await TestSshd.start({
        XDG_RUNTIME_DIR: env.runtimeDir,
        XDG_STATE_HOME: env.env.XDG_STATE_HOME!,
        XDG_CONFIG_HOME: env.env.XDG_CONFIG_HOME!,
      });
      try {
        return { env, sshd, ...(await startDaemon(env)) };
      } catch (err) {
        await sshd.stop();
        throw err;
      }
    }

    function hosts(m: Machine, names: Record<string, string>): void {
      const dir = path.join(m.env.env.XDG_CONFIG_HOME!, 'clippy');
      fs.mkdirSync(dir, { recursive: true });
      fs.writeFileSync(path.join(dir, 'config.json'), JSON.stringify({ hosts: names }));
    }

    /** `clippy route add … --hop-limit 4` on machine `m`, its ssh reaching `via`'s sshd. */
    async function addRoute(m: Machine, via: Machine, args: string[]): Promise<void> {
      const env = { ...m.env.env, CLIPPY_SSH_COMMAND: via.sshd.sshCommand };
      const r = await runClippy(
        ['route', 'add', ...args, '--hop-limit', '4'],
        env,
        CYCLE_TIMEOUT_MS,
      );
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
    }

    it('clippy route add on each machine naming the other: the cycle ends at the hop limit', async () => {
      await spawnAgent(laptop.d, laptop.c, 'claude', 'claude', 'claude');
      await spawnAgent(build.d, build.c, 'codex', 'claude', 'claude');
      // One on each machine, neither waiting for the other: side by side.
      await Promise.all([
        addRoute(laptop, build, ['build:codex', 'claude', '--name', 'in']),
        addRoute(build, laptop, ['laptop:claude', 'codex', '--name', 'back']),
      ]);
      const watch = await CycleWatch.follow([laptop.c, build.c], ['in', 'back'], 4);
      await watch.run('through sshd', () =>
        build.c.request('send', { session: 'codex', text: 'start the cycle', enter: true }),
      );
      expect(watch.fired.map((e) => e.route)).toEqual(['in', 'back', 'in', 'back']);
      expect(watch.stops.map((e) => e.route)).toEqual(['in']);
      // The CLI shows the stop as it shows a local one, in `route log`.
      const log = await runClippy(['route', 'log', 'in'], laptop.env.env);
      expect(log.stdout).toMatch(
        / in skipped \S+ → claude \(hop limit 4 reached: this turn came from a chain of 4 automatic injections, counted across daemons \(the last by a route on build: /u,
      );
      watch.close();
    });

    it('a daemon that reaches itself over SSH: the cycle ends at the hop limit', async () => {
      await spawnAgent(laptop.d, laptop.c, 'x', 'claude', 'claude');
      await spawnAgent(laptop.d, laptop.c, 'y', 'claude', 'claude');
      // Independent of each other (the local cycle check cannot see that `me:x` is x): side
      // by side.
      await Promise.all([
        addRoute(laptop, laptop, ['me:x', 'y', '--name', 'via-ssh']),
        addRoute(laptop, laptop, ['y', 'x', '--name', 'home']),
      ]);
      const watch = await CycleWatch.follow([laptop.c], ['via-ssh', 'home'], 4);
      await watch.run('own daemon over sshd', () =>
        laptop.c.request('send', { session: 'x', text: 'go round', enter: true }),
      );
      expect(watch.fired.map((e) => e.route)).toEqual(['via-ssh', 'home', 'via-ssh', 'home']);
      expect(watch.stops.map((e) => e.route)).toEqual(['via-ssh']);
      watch.close();
    });
  },
);

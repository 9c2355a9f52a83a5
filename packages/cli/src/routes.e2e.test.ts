import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import type { RouteLogEntry } from '@clippy/protocol';
import {
  answerText,
  askTurn,
  spawnAgent,
  submissions,
  waitState,
} from '@clippy/testkit/agents/harness';
import { CliPty, runClippy } from '@clippy/testkit/cli-pty';
import type { TestDaemon } from '@clippy/testkit/daemon';
import { daemonForFile } from '@clippy/testkit/daemon-per-file';
import { eventually, until } from '@clippy/testkit/until';

// Routes end to end (issue 14): the real CLI adds them, the real daemon fires them on the fake
// agents' turns (a line agent, aider's kind, and a redrawing TUI, Claude Code's kind), and
// each agent's own log says exactly what arrived, in order.

/** How long a chain of fake-agent turns may take on a loaded machine. */
const FLOW_TIMEOUT_MS = 30_000;

let d: TestDaemon;
let c: ClippyClient;
daemonForFile((daemon, client) => ([d, c] = [daemon, client]));

const clippy = (args: string[]) => runClippy(args, d.env.env);

/** What `clippy route log [ROUTE] --json` prints: the entries, as the user reads them. */
async function log(route?: string): Promise<RouteLogEntry[]> {
  const r = await clippy(['route', 'log', ...(route ? [route] : []), '--json']);
  expect(r.code).toBe(0);
  return (JSON.parse(r.stdout) as { entries: RouteLogEntry[] }).entries;
}

/**
 * The same entries straight from the daemon, for polling: a CLI process per look costs about a
 * second of CPU on a loaded 2-core machine (what the user reads is checked with `log`).
 */
async function entries(route: string): Promise<RouteLogEntry[]> {
  return (await c.request('route_log', { route })).entries;
}

/**
 * What `clippy route add FROM TO --name NAME` sets up, through the test's client: for tests
 * whose subject is what the route does (`route add` itself, and what it prints, is checked in
 * the tests that add their routes with the CLI).
 */
async function addRoute(from: string, to: string, name: string, hopLimit?: number): Promise<void> {
  await c.request('add_route', {
    from: [from],
    to,
    name,
    ...(hopLimit !== undefined ? { hop_limit: hopLimit } : {}),
  });
}

const texts = (file: string) => submissions(file).map((s) => s.text);

/** Waits until the agent has received `n` submissions. */
async function received(file: string, n: number): Promise<string[]> {
  await until(() => submissions(file).length >= n, `${n} submissions in ${file}`, FLOW_TIMEOUT_MS);
  return texts(file);
}

function replies(name: string, lines: string[]): string {
  const file = join(d.env.root, `${name}.replies.json`);
  writeFileSync(file, JSON.stringify(lines));
  return file;
}

describe('clippy route and clippy loop', { timeout: 120_000 }, () => {
  it('a writer/reviewer loop stops on the reviewer’s LGTM in the third round', async () => {
    const writer = await spawnAgent(d, c, 'writer', 'aider', 'aider');
    const reviewer = await spawnAgent(d, c, 'reviewer', 'claude', 'claude', [
      '--replies',
      replies('reviewer', ['fix the tests', 'rename the flag', 'LGTM, ship it']),
    ]);
    const r = await clippy([
      'loop',
      'writer',
      'reviewer',
      '--until',
      'LGTM',
      '--prompt',
      'write the parser',
    ]);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(
      'route loop1.a: writer → reviewer (template plain, until /LGTM/, 5 rounds)\n' +
        'route loop1.b: reviewer → writer (template plain, until /LGTM/, 5 rounds)\n',
    );
    await until(() => submissions(reviewer).length === 3, 'three reviews asked', FLOW_TIMEOUT_MS);
    await waitState(c, 'reviewer', 'idle', FLOW_TIMEOUT_MS);
    // The ending turn is checked before it would be forwarded.
    await until2(async () => (await entries('loop1')).some((e) => e.event === 'ended'));
    // What the user reads once the loop ended: its log and `route ls`, side by side (each a
    // CLI process, neither changes anything).
    const [loopLog, lsRun] = await Promise.all([log('loop1'), clippy(['route', 'ls', '--json'])]);
    const ended = loopLog.find((e) => e.event === 'ended')!;
    expect(ended.reason).toMatch(/^turn \w+:3 of 'reviewer' matched --until$/u);
    // The reviewer's answers without the mark its TUI draws before them (the claude preset's).
    expect(texts(writer)).toEqual(['write the parser', 'fix the tests', 'rename the flag']);
    expect(texts(reviewer)).toEqual([
      answerText('write the parser'),
      answerText('fix the tests'),
      answerText('rename the flag'),
    ]);
    const events = loopLog.map((e) => `${e.route} ${e.event}`);
    expect(events).toEqual([
      'loop1 added',
      'loop1.b fired', // the prompt
      'loop1.a fired',
      'loop1.b fired',
      'loop1.a fired',
      'loop1.b fired',
      'loop1.a fired',
      'loop1 ended',
    ]);
    const ls = JSON.parse(lsRun.stdout) as {
      routes: { route: string; state: string; fired: number; loop: { round: number } }[];
    };
    expect(ls.routes.map((x) => [x.route, x.state, x.fired, x.loop.round])).toEqual([
      ['loop1.a', 'ended', 3, 3],
      ['loop1.b', 'ended', 3, 3],
    ]);
  });

  it('--when forwards only matching turns and logs the others as skipped', async () => {
    await spawnAgent(d, c, 'w1', 'aider', 'aider');
    const target = await spawnAgent(d, c, 't1', 'claude', 'claude');
    const add = await clippy([
      'route',
      'add',
      'w1',
      't1',
      '--when',
      'URGENT',
      '--wrap',
      'From w1:',
    ]);
    expect(add.stdout).toBe('route r1: w1 → t1 (template wrap, when /URGENT/)\n');
    await askTurn(c, 'w1', 'routine note');
    await askTurn(c, 'w1', 'URGENT: the build broke');
    expect(await received(target, 1)).toEqual([
      `From w1:\n\n${answerText('URGENT: the build broke')}`,
    ]);
    // Both read only: side by side (each a CLI process).
    const [entries, ls] = await Promise.all([log('r1'), clippy(['ls'])]);
    expect(entries.map((e) => [e.event, e.reason])).toEqual([
      ['added', null],
      ['skipped', 'the turn does not match --when /URGENT/'],
      ['fired', null],
    ]);
    expect(ls.stdout).toMatch(/^w1\s.*\s→t1\s*$/mu);
  });

  it('a fan-in of three sources injects one combined message once each has answered', async () => {
    for (const s of ['fa', 'fb', 'fc']) await spawnAgent(d, c, s, 'aider', 'aider');
    const target = await spawnAgent(d, c, 'synth', 'claude', 'claude');
    const add = await clippy(['route', 'fan-in', 'fa,fb,fc', 'synth', '--name', 'merge']);
    expect(add.stdout).toBe('route merge: fa, fb, fc ⇒ synth (template synthesize)\n');
    await askTurn(c, 'fb', 'answer two');
    await askTurn(c, 'fa', 'answer one');
    expect(submissions(target)).toEqual([]);
    await askTurn(c, 'fc', 'answer three');
    const [got] = await received(target, 1);
    const merge = await log('merge');
    const fired = merge.find((e) => e.event === 'fired')!;
    const [ida, idb, idc] = fired.turn_ids;
    expect(got).toBe(
      'Combine these answers into one, keeping what each gets right and saying where they disagree.\n\n' +
        `## fa (${ida})\n\n${answerText('answer one')}\n\n` +
        `## fb (${idb})\n\n${answerText('answer two')}\n\n` +
        `## fc (${idc})\n\n${answerText('answer three')}\n\n`,
    );
    expect(merge.map((e) => [e.event, e.reason])).toEqual([
      ['added', null],
      ['queued', 'waiting for fa, fc'],
      ['queued', 'waiting for fc'],
      ['fired', null],
    ]);
  });

  it('waits for a busy target and injects when it is idle; a hop limit stops a chain', async () => {
    await spawnAgent(d, c, 'h1', 'aider', 'aider');
    const slow = await spawnAgent(d, c, 'h2', 'claude', 'claude', ['--pieces', '2', '--hold']);
    const last = await spawnAgent(d, c, 'h3', 'claude', 'claude');
    await addRoute('h1', 'h2', 'first', 1);
    await addRoute('h2', 'h3', 'second', 1);
    // A cycle of routes is refused: only a loop may go round.
    const cycle = await clippy(['route', 'add', 'h3', 'h1']);
    expect(cycle.code).toBe(64);
    expect(cycle.stderr).toMatch(/would close a cycle \(h3 → h1 → h2 → h3\)/u);
    // h2 is busy with its own slow answer when h1's turn arrives: it holds the answer until
    // released, once the route has queued h1's turn for it.
    await c.request('send', { session: 'h2', text: 'slow work', enter: true });
    await waitState(c, 'h2', 'busy');
    await askTurn(c, 'h1', 'hand this over');
    await until2(async () => (await entries('first')).some((e) => e.event === 'queued'));
    process.kill(await pidOf('h2'), 'SIGUSR1');
    expect(await received(slow, 2)).toEqual(['slow work', answerText('hand this over')]);
    const first = await log('first');
    expect(first.map((e) => [e.event, e.reason])).toEqual([
      ['added', null],
      ['queued', 'target is busy: sent when it is idle'],
      ['fired', null],
    ]);
    // h2's own answer to 'slow work' (not set off by a route) goes on to h3; the answer to the
    // routed turn is one hop further than the limit allows.
    await until2(
      async () => (await entries('second')).filter((e) => e.event !== 'added').length >= 2,
    );
    const second = await log('second');
    expect(second.map((e) => [e.event, e.reason])).toEqual([
      ['added', null],
      ['fired', null],
      ['skipped', 'hop limit 1 reached: this turn came from a chain of 1 automatic injections'],
    ]);
    expect(texts(last)).toHaveLength(1);
  });

  it('skips interrupted turns, keeps at most 16 messages for a busy target (oldest dropped), and follows the log', async () => {
    // q1's first answer holds until released (SIGUSR1), so the Ctrl-C below lands mid-answer
    // however loaded the machine (a 5 ms think time let the answer finish first); the rest of
    // its answers come at once (`--pause 0`).
    const source = await spawnAgent(d, c, 'q1', 'aider', 'aider', [
      '--delay',
      '5',
      '--pieces',
      '2',
      '--hold',
      '--pause',
      '0',
    ]);
    const sink = await spawnAgent(d, c, 'q2', 'claude', 'claude', ['--pieces', '2', '--hold']);
    const follow = CliPty.clippy(['route', 'log', 'q', '--follow'], {
      env: d.env.env,
      cols: 200,
      rows: 50,
    });
    try {
      await addRoute('q1', 'q2', 'q');
      await follow.waitFor(' q added → q2');
      // An interrupted turn of the source is not forwarded.
      await c.request('send', { session: 'q1', text: 'stop me', enter: false });
      await c.request('input', { session: 'q1', data: Buffer.from('\r') });
      // Read by the agent first: a Ctrl-C would flush a line still in the terminal's queue.
      await received(source, 1);
      await c.request('input', { session: 'q1', data: Buffer.from('\x03') });
      process.kill(await pidOf('q1'), 'SIGUSR1');
      await until2(async () => (await entries('q')).some((e) => e.event === 'skipped'));
      expect((await entries('q')).find((e) => e.event === 'skipped')?.reason).toBe(
        'the turn was interrupted',
      );
      // q2 holds its answer (never released): 17 turns of q1 meanwhile leave 16 waiting and
      // drop the first.
      await c.request('send', { session: 'q2', text: 'long job', enter: true });
      await waitState(c, 'q2', 'busy');
      for (let i = 1; i <= 17; i++) await askTurn(c, 'q1', `note ${i}`);
      // The route takes the 17th turn as the daemon reports it complete: its drop may come
      // just after the answer to the ask.
      await until2(async () => (await entries('q')).some((e) => e.event === 'dropped'));
      // Both read only: side by side (each a CLI process).
      const [qLog, lsRun] = await Promise.all([log('q'), clippy(['route', 'ls', '--json'])]);
      const dropped = qLog.filter((e) => e.event === 'dropped');
      expect(dropped.map((e) => e.reason)).toEqual([
        "16 messages already waited for 'q2' (oldest dropped)",
      ]);
      const ls = JSON.parse(lsRun.stdout) as {
        routes: { route: string; queued: number }[];
      };
      expect(ls.routes.find((r) => r.route === 'q')?.queued).toBe(16);
      // What follow printed as it happened: the drop, with its reason.
      await follow.waitFor('q dropped');
      expect(follow.text).toMatch(/ q skipped \S+ → q2 \(the turn was interrupted\)/u);
      expect(submissions(sink)).toHaveLength(1);
    } finally {
      await follow.dispose();
      await c.request('remove_route', { route: 'q' });
    }
  });

  it('replay --template renders earlier turns with a route template', async () => {
    await spawnAgent(d, c, 'old', 'aider', 'aider');
    const fresh = await spawnAgent(d, c, 'fresh', 'claude', 'claude');
    const ids = [
      await askTurn(c, 'old', 'first finding'),
      await askTurn(c, 'old', 'second finding'),
    ];
    // The refusal changes nothing: side by side with the replay (each a CLI process).
    const [r, bad] = await Promise.all([
      clippy(['replay', 'old', '--last', '2', '--into', 'fresh', '--template', 'synthesize']),
      clippy(['replay', 'old', '--last', '1', '--into', 'fresh', '--template', 'nope']),
    ]);
    expect(r.stderr).toBe('');
    const [got] = await received(fresh, 1);
    expect(got).toBe(
      'Combine these answers into one, keeping what each gets right and saying where they disagree.\n\n' +
        `## old (${ids[0]})\n\n${answerText('first finding')}\n\n` +
        `## old (${ids[1]})\n\n${answerText('second finding')}\n\n`,
    );
    expect(bad.code).toBe(1);
    expect(bad.stderr).toMatch(/no template 'nope'/u);
  });

  it('a target that exits pauses its routes; a source that exits ends them', async () => {
    await spawnAgent(d, c, 'x1', 'aider', 'aider');
    await spawnAgent(d, c, 'x2', 'aider', 'aider');
    await spawnAgent(d, c, 'x3', 'aider', 'aider');
    await addRoute('x1', 'x2', 'to-x2');
    await addRoute('x3', 'x1', 'from-x3');
    await c.request('kill', { session: 'x2' });
    await waitState(c, 'x2', 'exited');
    await c.request('kill', { session: 'x3' });
    await waitState(c, 'x3', 'exited');
    const ls = JSON.parse((await clippy(['route', 'ls', '--json'])).stdout) as {
      routes: { route: string; state: string; reason: string }[];
    };
    const byName = Object.fromEntries(ls.routes.map((r) => [r.route, [r.state, r.reason]]));
    expect(byName['to-x2']).toEqual(['paused', "target 'x2' exited"]);
    expect(byName['from-x3']).toEqual(['ended', "source 'x3' exited"]);
    // Three refusals that change nothing, side by side (each a CLI process).
    const [resume, bad, tpl] = await Promise.all([
      clippy(['route', 'resume', 'to-x2']),
      clippy(['route', 'add', 'x1', 'w1', '--when', '(a']),
      clippy(['route', 'add', 'x1', 'w1', '--template', 'nope']),
    ]);
    expect(resume.code).toBe(1);
    expect(resume.stderr).toMatch(/the target 'x2' of 'to-x2' has exited/u);
    expect((await clippy(['route', 'rm', 'to-x2'])).stdout).toBe('removed to-x2\n');
    const missing = await clippy(['route', 'rm', 'to-x2']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no route or loop is named 'to-x2' \(route_not_found\)/u);
    expect(bad.code).toBe(64);
    expect(bad.stderr).toMatch(/--when '\(a'/u);
    expect(tpl.code).toBe(64);
    expect(tpl.stderr).toMatch(
      /no template 'nope': built in are plain, review, implement, review-diff, synthesize/u,
    );
  });
});

/** The process ID of a session's program. */
async function pidOf(name: string): Promise<number> {
  const { sessions } = await c.request('list_sessions', {});
  return sessions.find((s) => s.name === name)!.pid!;
}

/** Pause between two looks of `until2` (each a request to the daemon). */
const UNTIL2_POLL_MS = 20;

/** testkit's `eventually`, bounded by the file's flow timeout: an async check of the route log. */
function until2<T>(
  check: () => Promise<T | undefined | false>,
  what = 'the route log',
): Promise<T> {
  return eventually(check, what, FLOW_TIMEOUT_MS, UNTIL2_POLL_MS);
}

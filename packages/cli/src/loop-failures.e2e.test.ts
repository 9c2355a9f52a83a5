import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import type { RouteInfo, RouteLogEntry } from '@clippy/protocol';
import { spawnAgent, submissions } from '@clippy/testkit/agents/harness';
import { runClippy } from '@clippy/testkit/cli-pty';
import { DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';
import { FakeNotifySend } from '@clippy/testkit/fake-notify';
import { eventually } from '@clippy/testkit/until';

// Issue 44 item 9: a loop hop its target did not take (`did not react to Enter (tried twice)`)
// is not silent. The reviewer is the fake Claude Code that takes its first Enters after a paste
// as newlines (`--newline-enters N`, as Gemini CLI 0.61 does soon after a paste): the text stays
// in its box. Before, `route log` said `failed` while `route ls` showed both legs active and
// nothing moved again.

/** A loop's hand-overs between fake agents, with a hop tried again, on a loaded machine. */
const FLOW_TIMEOUT_MS = 60_000;

let d: TestDaemon;
let c: ClippyClient;
let notify: FakeNotifySend;

beforeAll(async () => {
  notify = new FakeNotifySend();
  d = await TestDaemon.start({ env: new DaemonEnv({ DISPLAY: ':99', PATH: notify.path() }) });
  c = await d.connect();
}, FLOW_TIMEOUT_MS);

afterAll(async () => {
  await c?.close();
  await d?.stop();
  notify?.dispose();
}, FLOW_TIMEOUT_MS);

const clippy = (args: string[]) => runClippy(args, d.env.env);

function replies(name: string, lines: string[]): string {
  const file = join(d.env.root, `${name}.replies.json`);
  writeFileSync(file, JSON.stringify(lines));
  return file;
}

/** The loop's log from the daemon, polled until `done` holds of it. */
async function logUntil(
  loop: string,
  done: (entries: RouteLogEntry[]) => boolean,
  what: string,
): Promise<RouteLogEntry[]> {
  let entries: RouteLogEntry[] = [];
  try {
    await eventually(
      async () => done((entries = (await c.request('route_log', { route: loop })).entries)),
      what,
      FLOW_TIMEOUT_MS,
    );
  } catch (err) {
    const seen = entries.map((e) => `${e.route} ${e.event} ${e.reason ?? ''}`);
    throw new Error(`${(err as Error).message}; the log: ${JSON.stringify(seen)}`);
  }
  return entries;
}

const texts = (log: string) => submissions(log).map((s) => s.text.trim());

describe('a loop hop its target did not take', { timeout: 2 * FLOW_TIMEOUT_MS }, () => {
  it('is tried again when the target is next idle (Enter on the text in its box): the loop goes on to its end', async () => {
    await spawnAgent(d, c, 'w1', 'claude', 'claude', ['--replies', replies('w1', ['Draft one.'])]);
    const rvLog = await spawnAgent(d, c, 'rv1', 'claude', 'claude', [
      '--newline-enters',
      '2',
      '--replies',
      replies('rv1', ['LGTM']),
    ]);
    const added = await clippy([
      'loop',
      'w1',
      'rv1',
      '--name',
      'loop1',
      '--until',
      'LGTM',
      '--prompt',
      'Write it.',
    ]);
    expect(added.code, added.stderr).toBe(0);
    const log = await logUntil(
      'loop1',
      (e) => e.some((x) => x.event === 'ended'),
      'the loop ended',
    );
    const lines = log.map((e) => `${e.route} ${e.event}`);
    expect(lines).toEqual([
      'loop1 added',
      'loop1.b fired', // the prompt
      'loop1.a failed', // rv1 took the Enters as newlines
      'loop1.a fired', // tried again: Enter on the text in its box
      'loop1 ended',
    ]);
    expect(log[2]!.reason).toMatch(/did not react to Enter.*tried again when 'rv1' is next idle/);
    expect(log[4]!.reason).toMatch(/matched --until/);
    // The reviewer got the writer's answer once, not typed twice into its box.
    expect(texts(rvLog)).toEqual([expect.stringContaining('Draft one.')]);
    expect(texts(rvLog)[0]!.split('Draft one.')).toHaveLength(2);
  });

  it('that fails again stops the loop, saying why in route ls, clippy ls and a notification; resume sends it again', async () => {
    await spawnAgent(d, c, 'w2', 'claude', 'claude', ['--replies', replies('w2', ['Draft two.'])]);
    const rvLog = await spawnAgent(d, c, 'rv2', 'claude', 'claude', [
      // Both tries of two Enters each: taken on the fifth.
      '--newline-enters',
      '4',
      '--replies',
      replies('rv2', ['LGTM']),
    ]);
    const added = await clippy([
      'loop',
      'w2',
      'rv2',
      '--name',
      'loop2',
      '--until',
      'LGTM',
      '--prompt',
      'Write it.',
    ]);
    expect(added.code, added.stderr).toBe(0);
    await logUntil(
      'loop2',
      (e) => e.some((x) => x.route === 'loop2' && x.event === 'paused'),
      'the loop stopped',
    );
    const [routeLs, ls, lsText] = await Promise.all([
      clippy(['route', 'ls', '--json']),
      clippy(['ls', '--json']),
      clippy(['ls']),
    ]);
    const legs = (JSON.parse(routeLs.stdout) as { routes: RouteInfo[] }).routes.filter(
      (r) => r.loop?.name === 'loop2',
    );
    expect(legs.map((r) => [r.route, r.state, r.failed ?? false])).toEqual([
      ['loop2.a', 'paused', true],
      ['loop2.b', 'paused', false],
    ]);
    expect(legs[0]!.reason).toMatch(
      /'rv2' did not take a message: .*did not react to Enter.*clippy route resume loop2/,
    );
    expect(ls.code).toBe(0);
    expect(lsText.stdout.split('\n').find((l) => l.startsWith('w2 '))).toContain('→rv2(failed)');
    const [note] = notify.records().filter((n) => n.title === 'loop2 stopped');
    expect(note?.body).toMatch(/'rv2' did not take its message/);
    // Resumed: the message goes again — Enter on the text still in rv2's box — and the loop
    // ends on the reviewer's LGTM.
    const resumed = await clippy(['route', 'resume', 'loop2']);
    expect(resumed.code, resumed.stderr).toBe(0);
    await logUntil('loop2', (e) => e.some((x) => x.event === 'ended'), 'the resumed loop ended');
    expect(texts(rvLog)).toEqual([expect.stringContaining('Draft two.')]);
    expect(texts(rvLog)[0]!.split('Draft two.')).toHaveLength(2);
  });
});

/**
 * Wrong web view tokens cost the guesser, not the log (issue 46, item 5: two processes posting
 * random tokens to /session, about 2,200 a second each, grew clippyd.log by 7.3 MB in 15 s and
 * rotated every earlier line away). The real daemon in the background (logging to its file),
 * flooded by two processes; then one source's wrong token is held while a right one is served.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runClippy } from '@clippy/testkit/cli-pty';
import { DaemonEnv } from '@clippy/testkit/daemon';
import { REFUSAL_REPORT_INTERVAL_MS } from '../src/web/refusals.js';

/** Requests each flooding process makes (each a random token), and how many at once. */
const FLOOD_REQUESTS = 1_500;
const FLOOD_AT_ONCE = 32;
/** A guess the flood stops waiting for (the daemon holds it): it goes on with the next one. */
const FLOOD_GIVE_UP_MS = 100;
/** Room for the daemon's start, the floods and the held answers on a loaded machine. */
const TEST_TIMEOUT_MS = 180_000;
/** Timer slack: node may run a timer a millisecond before its time. */
const TIMER_SLACK_MS = 5;

/**
 * A flood (`node -e`): FLOOD_REQUESTS posts of random tokens to /session, FLOOD_AT_ONCE at a
 * time; prints how many were answered with 403.
 */
const FLOOD_SCRIPT = String.raw`
const http = require('node:http');
const crypto = require('node:crypto');
const [port, total, atOnce, giveUp] = process.argv.slice(1).map(Number);
const agent = new http.Agent({ keepAlive: true, maxSockets: atOnce });
let sent = 0, refused = 0, other = 0, running = 0;
function next() {
  if (sent >= total) { if (running === 0) done(); return; }
  sent++; running++;
  const req = http.request({ host: '127.0.0.1', port, path: '/session', method: 'POST', agent,
    headers: { authorization: 'Bearer ' + crypto.randomBytes(24).toString('hex') } }, (res) => {
    res.resume();
    if (res.statusCode === 403) refused++; else other++;
    res.on('end', finish);
  });
  req.setTimeout(giveUp, () => req.destroy());
  req.on('error', finish);
  let finished = false;
  function finish() { if (finished) return; finished = true; running--; next(); }
  req.end();
}
function done() { process.stdout.write(JSON.stringify({ sent, refused, other }) + '\n'); agent.destroy(); }
for (let i = 0; i < atOnce; i++) next();
`;

interface LogLine {
  time: number;
  msg: string;
  refused?: number;
}

let denv: DaemonEnv;
let port: number;
let token: string;
const floods: ChildProcess[] = [];

beforeAll(async () => {
  denv = new DaemonEnv();
  const started = await runClippy(['daemon', 'start'], denv.env);
  const pid = /\(pid (\d+)\)/.exec(started.stdout + started.stderr);
  if (pid) denv.track(Number(pid[1]));
  expect(started.code, started.stderr).toBe(0);
  const web = await runClippy(['web', '--json'], denv.env);
  expect(web.code, web.stderr).toBe(0);
  ({ port, token } = JSON.parse(web.stdout) as { port: number; token: string });
}, TEST_TIMEOUT_MS);

afterAll(async () => {
  for (const f of floods) if (f.exitCode === null) f.kill('SIGKILL');
  await denv?.dispose();
}, TEST_TIMEOUT_MS);

const logFile = () => join(denv.env.XDG_STATE_HOME!, 'clippy', 'clippyd.log');

function logLines(): LogLine[] {
  return readFileSync(logFile(), 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as LogLine);
}

function flood(): Promise<{ sent: number; refused: number; other: number }> {
  const child = spawn(
    process.execPath,
    [
      '-e',
      FLOOD_SCRIPT,
      String(port),
      String(FLOOD_REQUESTS),
      String(FLOOD_AT_ONCE),
      String(FLOOD_GIVE_UP_MS),
    ],
    { stdio: ['ignore', 'pipe', 'inherit'] },
  );
  floods.push(child);
  let out = '';
  child.stdout!.on('data', (b: Buffer) => (out += b.toString()));
  return new Promise((resolve, reject) =>
    child.once('exit', () => {
      try {
        resolve(JSON.parse(out) as { sent: number; refused: number; other: number });
      } catch {
        reject(new Error(`the flood printed no result: ${out}`));
      }
    }),
  );
}

/** POST /session with `bearer`; resolves with its status when answered. */
async function post(bearer: string): Promise<number> {
  const r = await fetch(`http://127.0.0.1:${port}/session`, {
    method: 'POST',
    headers: { authorization: `Bearer ${bearer}` },
  });
  await r.arrayBuffer();
  return r.status;
}

describe('wrong web view tokens', () => {
  it(
    'two floods of random tokens leave a few counted summary lines: the earlier log is kept',
    async () => {
      const before = logLines();
      expect(before.length).toBeGreaterThan(0);
      const [a, b] = await Promise.all([flood(), flood()]);
      expect(a.other + b.other).toBe(0);
      // The daemon stops: what it counted and did not report yet is reported.
      expect((await runClippy(['daemon', 'stop'], denv.env)).code).toBe(0);
      const lines = logLines();
      // Nothing rotated away: the lines from before the floods are the file's first ones.
      expect(lines.slice(0, before.length)).toEqual(before);
      expect(statSync(logFile()).size).toBeLessThan(64 * 1024);
      const refusals = lines.filter((l) => /^web view requests? refused/u.test(l.msg));
      // At most one line per interval (by the daemon's own clock), each with its count...
      for (let i = 2; i < refusals.length; i++)
        expect(refusals[i]!.time - refusals[i - 1]!.time).toBeGreaterThanOrEqual(
          REFUSAL_REPORT_INTERVAL_MS - TIMER_SLACK_MS,
        );
      // ...and every refusal the floods were answered with is counted in them.
      const counted = refusals.reduce((n, l) => n + (l.refused ?? 0), 0);
      expect(counted).toBeGreaterThanOrEqual(a.refused + b.refused);
      // Start again for the next test.
      const restarted = await runClippy(['daemon', 'start'], denv.env);
      const pid = /\(pid (\d+)\)/.exec(restarted.stdout + restarted.stderr);
      if (pid) denv.track(Number(pid[1]));
      const web = await runClippy(['web', '--json'], denv.env);
      ({ port, token } = JSON.parse(web.stdout) as { port: number; token: string });
    },
    TEST_TIMEOUT_MS,
  );

  it(
    'repeated wrong tokens from one source wait; a right token from it is answered meanwhile',
    async () => {
      const order: string[] = [];
      // Past the few answered at once, the next wrong token is held...
      for (let i = 0; i < 6; i++) expect(await post(`wrong${i}`)).toBe(403);
      const wrong = post('wrong-again').then((s) => order.push(`wrong ${s}`));
      // ...while the right one, sent after it, is answered first.
      const right = post(token).then((s) => order.push(`right ${s}`));
      await Promise.all([wrong, right]);
      expect(order).toEqual(['right 200', 'wrong 403']);
    },
    TEST_TIMEOUT_MS,
  );
});

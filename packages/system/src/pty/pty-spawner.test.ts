import { afterEach, describe, expect, it } from 'vitest';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { spawnPty } from './node-pty-process.js';
import type { PtyExit, PtyProcess, PtySpawnOptions } from './pty-process.js';
import { PtySpawner } from './pty-spawner.js';

const LINUX = process.platform === 'linux';

const spawners: PtySpawner[] = [];
const pids: number[] = [];
const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  for (const pid of pids.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Ended already.
    }
  }
  for (const s of spawners.splice(0)) {
    const pid = s.pid;
    s.dispose();
    // The spawner ends once its stdin closes: stopped by its PID if it does not.
    if (pid !== null) await gone(pid, 5_000).catch(() => process.kill(pid, 'SIGKILL'));
  }
});

function newSpawner(
  problems: string[] = [],
  tools: { setsid?: string; stty?: string } = {},
  answerMs?: number,
): PtySpawner {
  const s = new PtySpawner((m) => problems.push(m), tools, answerMs);
  spawners.push(s);
  return s;
}

function options(script: string, extra: Partial<PtySpawnOptions> = {}): PtySpawnOptions {
  return {
    file: '/bin/sh',
    args: ['-c', script],
    cwd: tmpdir(),
    env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TERM: 'xterm' },
    cols: 91,
    rows: 21,
    ...extra,
  };
}

/** Everything the program shows, and how it ended. */
async function run(pty: PtyProcess): Promise<{ out: string; exit: PtyExit }> {
  pids.push(pty.pid);
  let out = '';
  pty.onData((d) => (out += d.toString('latin1')));
  const exit = await new Promise<PtyExit>((resolve) => pty.onExit(resolve));
  pty.dispose();
  return { out, exit };
}

function stateOf(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[0]!;
  } catch {
    return null;
  }
}

async function gone(pid: number, ms: number): Promise<void> {
  const end = Date.now() + ms;
  while (stateOf(pid) !== null && stateOf(pid) !== 'Z') {
    if (Date.now() > end) throw new Error(`process ${pid} still runs`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

function ownDescriptors(): number {
  return readdirSync('/proc/self/fd').length;
}

describe.skipIf(!LINUX)('the PTY spawner', () => {
  it("starts a program on the terminal node-pty's own fork gives it: settings, session, environment", async () => {
    // What a program can see of its terminal and its place: every setting, whether it leads
    // its own session with the PTY as controlling terminal, and the variables node-pty sets.
    const probe =
      'stty -a; [ "$(ps -o sid= -p $$)" -eq $$ ] && echo LEADER; ' +
      'ps -o tty= -p $$ | grep -q pts && echo CTTY; echo "PWD=$PWD TERM=$TERM"; exit 3';
    const spawner = newSpawner();
    const spawned = await run(await spawner.spawn(options(probe)));
    const forked = await run(spawnPty(options(probe)));
    expect(spawner.notUsed).toBeNull();
    expect(spawned.exit).toEqual({ exitCode: 3, signal: null });
    expect(spawned.out).toContain('LEADER');
    expect(spawned.out).toContain('CTTY');
    expect(spawned.out).toContain(`PWD=${tmpdir()} TERM=xterm`);
    expect(spawned.out).toContain('rows 21; columns 91');
    // The fork's own run first: once its output came back empty (a loaded CI run), and its exit
    // then tells whether the program ran at all.
    expect(forked.exit).toEqual({ exitCode: 3, signal: null });
    expect(spawned.out).toBe(forked.out);
  });

  it('starts the program as a child of the spawner, never of the calling process', async () => {
    const spawner = newSpawner();
    const pty = await spawner.spawn(options('cat'));
    pids.push(pty.pid);
    const ppid = Number(
      readFileSync(`/proc/${pty.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1],
    );
    expect(ppid).toBe(spawner.pid);
    expect(ppid).not.toBe(process.pid);
    expect(readFileSync(`/proc/${ppid}/cmdline`, 'utf8')).toContain('clippyd-spawner');
    // At once: the PID it was given leads its own process group already.
    expect(pty.killGroup('SIGKILL')).toBe(true);
    expect((await run(pty)).exit).toEqual({ exitCode: null, signal: 'SIGKILL' });
  });

  it("reads an exiting program's last output whole, however late the reader", async () => {
    // As the forked PTY's test (pty.test.ts): the end comes from the spawner here, and must
    // wait for the output still in the kernel's buffer all the same.
    const spawner = newSpawner();
    const pty = await spawner.spawn(options('seq 1 5000; echo LAST-LINE'));
    const slow = new Int32Array(new SharedArrayBuffer(4));
    let out = '';
    pty.onData((d) => {
      out += d.toString('latin1');
      Atomics.wait(slow, 0, 0, 150);
    });
    const exit = await new Promise((resolve) => pty.onExit(resolve));
    pty.dispose();
    expect(exit).toEqual({ exitCode: 0, signal: null });
    expect(out).toContain('4999\r\n5000\r\nLAST-LINE');
  }, 60_000);

  it('refuses a start in a folder that does not exist, naming it, and leaves nothing open', async () => {
    const spawner = newSpawner();
    await run(await spawner.spawn(options('true')));
    const before = ownDescriptors();
    await expect(spawner.spawn(options('true', { cwd: '/nonexistent/dir' }))).rejects.toThrow(
      'no such directory: /nonexistent/dir',
    );
    expect(ownDescriptors()).toBe(before);
    // The spawner goes on starting programs.
    expect((await run(await spawner.spawn(options('exit 4')))).exit.exitCode).toBe(4);
  });

  it('answers each of a burst of starts as it runs, however long the last one waits behind the rest', async () => {
    // Every start takes at least 30 ms in the spawner (its stty sleeps): 80 starts at once are
    // answered over 2.4 s or more, while no start may wait 1 s for the spawner to say anything.
    const dir = mkdtempSync(join(tmpdir(), 'clippy-slow-stty-'));
    dirs.push(dir);
    const stty = join(dir, 'stty');
    writeFileSync(stty, '#!/bin/sh\nsleep 0.03\n', { mode: 0o755 });
    const problems: string[] = [];
    const spawner = newSpawner(problems, { stty }, 1_000);
    await run(await spawner.spawn(options('true')));
    const asked = Date.now();
    let lastAnswer = 0;
    const exits = await Promise.all(
      Array.from({ length: 80 }, async (_, i) => {
        const pty = await spawner.spawn(options(`exit ${i % 50}`));
        lastAnswer = Date.now();
        return (await run(pty)).exit.exitCode;
      }),
    );
    expect(exits).toEqual(Array.from({ length: 80 }, (_, i) => i % 50));
    expect(lastAnswer - asked).toBeGreaterThan(80 * 30);
    expect(problems).toEqual([]);
  }, 60_000);

  it('takes a spawner that answers nothing for hung: its starts fail, the next one has a new spawner', async () => {
    const problems: string[] = [];
    const spawner = newSpawner(problems, {}, 1_000);
    await run(await spawner.spawn(options('true')));
    const hung = spawner.pid!;
    pids.push(hung);
    const before = ownDescriptors();
    process.kill(hung, 'SIGSTOP');
    const asked = performance.now();
    await expect(spawner.spawn(options('true'))).rejects.toThrow(
      'the spawner answered nothing in 1000 ms',
    );
    expect(performance.now() - asked).toBeGreaterThanOrEqual(1_000);
    expect(problems[0]).toBe(
      'the spawner answered nothing in 1000 ms: it is stopped, and the next session starts a new one',
    );
    await gone(hung, 5_000);
    expect(ownDescriptors()).toBe(before);
    const next = await run(await spawner.spawn(options('exit 3')));
    expect(next.exit).toEqual({ exitCode: 3, signal: null });
    expect(spawner.pid).not.toBe(hung);
  });

  it('when the spawner is killed, its programs still end as seen, and the next start has a new one', async () => {
    const problems: string[] = [];
    const spawner = newSpawner(problems);
    const pty = await spawner.spawn(options('read line; echo "got $line"'));
    const first = spawner.pid!;
    let out = '';
    pty.onData((d) => (out += d.toString('latin1')));
    const ended = new Promise<PtyExit>((resolve) => pty.onExit(resolve));
    process.kill(first, 'SIGKILL');
    await gone(first, 5_000);
    // Nothing reports this program's status any more: its end is seen, its status unknown.
    pty.write('bye\r');
    expect(await ended).toEqual({ exitCode: null, signal: null });
    pty.dispose();
    expect(out).toContain('got bye');
    expect(problems.join('\n')).toContain('the spawner ended');
    const next = await run(await spawner.spawn(options('exit 5')));
    expect(next.exit).toEqual({ exitCode: 5, signal: null });
    expect(spawner.pid).not.toBe(first);
  });

  it('without a setsid that can give a terminal, says so once and starts programs by a fork', async () => {
    const problems: string[] = [];
    const spawner = newSpawner(problems, { setsid: 'no-such-setsid' });
    const pty = await spawner.spawn(options('read line; echo "forked $line"; exit 6'));
    // Forked by node-pty from this process.
    const ppid = Number(
      readFileSync(`/proc/${pty.pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[1],
    );
    expect(ppid).toBe(process.pid);
    pty.write('ok\r');
    const { out, exit } = await run(pty);
    expect(exit).toEqual({ exitCode: 6, signal: null });
    expect(out).toContain('forked ok');
    expect(spawner.notUsed).toBe('no no-such-setsid on PATH');
    expect(problems).toEqual(['sessions are forked from the daemon: no no-such-setsid on PATH']);
    // Not tried again: the next start forks too, and nothing more is said.
    expect((await run(await spawner.spawn(options('exit 2')))).exit.exitCode).toBe(2);
    expect(problems).toHaveLength(1);
  });

  it("starts programs all the same when the terminal's settings cannot be set, and says so once", async () => {
    const problems: string[] = [];
    // `false` as stty: it fails whatever it is asked.
    const spawner = newSpawner(problems, { stty: 'false' });
    for (const code of [7, 8]) {
      const { out, exit } = await run(await spawner.spawn(options(`stty -a; exit ${code}`)));
      expect(exit).toEqual({ exitCode: code, signal: null });
      // The kernel's defaults: not node-pty's IXANY.
      expect(out).toContain('-ixany');
    }
    expect(spawner.notUsed).toBeNull();
    expect(problems).toEqual(["a session's terminal settings are the kernel's: stty: failed"]);
  });
});

import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { processRunning } from './process-running.js';

const LINUX = process.platform === 'linux';

const children: number[] = [];
afterEach(() => {
  for (const pid of children.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // Ended already.
    }
  }
});

/** Process `pid`'s state letter (R, S, Z, ...), or null once it is gone. */
function stateOf(pid: number): string | null {
  try {
    return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')[0]!;
  } catch {
    return null;
  }
}

describe.skipIf(!LINUX)('processRunning', () => {
  it('a running process runs; one that ended and is not reaped (a zombie) does not; nor a PID unused', async () => {
    // The shell starts a child in the background, prints its PID and becomes `sleep 30`, which
    // never reaps it: a zombie for as long as its parent sleeps. The child ends only once its
    // parent is `sleep`: one that ended sooner could be reaped by the shell before its exec
    // (CI run 106: "never became a zombie").
    const parent = spawn(
      '/bin/sh',
      [
        '-c',
        '(while [ "$(cat /proc/$$/comm)" != sleep ]; do sleep 0.01; done) & echo $!; exec sleep 30',
      ],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    children.push(parent.pid!);
    const zombie = await new Promise<number>((resolve) =>
      parent.stdout.once('data', (d: Buffer) => resolve(Number(String(d).trim()))),
    );
    const deadline = Date.now() + 10_000;
    while (stateOf(zombie) !== 'Z') {
      if (Date.now() > deadline) throw new Error(`process ${zombie} never became a zombie`);
      await new Promise((r) => setTimeout(r, 10));
    }
    // A signal 0 still reaches it: only its state says it ended.
    expect(() => process.kill(zombie, 0)).not.toThrow();
    expect(processRunning(zombie)).toBe(false);
    expect(processRunning(parent.pid!)).toBe(true);
    expect(processRunning(process.pid)).toBe(true);
    parent.kill('SIGKILL');
    await new Promise((r) => parent.once('exit', r));
    expect(processRunning(parent.pid!)).toBe(false);
  });
});

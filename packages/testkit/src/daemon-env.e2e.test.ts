import { spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { DaemonEnv } from './daemon.js';
import { isAlive as alive, processesWithRuntimeDir } from './env-processes.js';
import { platformMissing } from './requirements.js';

describe.skipIf(
  platformMissing(fs.existsSync('/proc/self/environ'), 'reading /proc/*/environ') !== null,
)('DaemonEnv.dispose', () => {
  it('stops by PID what still runs in the environment though nobody tracked it, and only that', async () => {
    const env = new DaemonEnv();
    const other = new DaemonEnv();
    // A grandchild the test never learns of but by its output (as a daemon the CLI auto-started),
    // and one whose environment starts with the variable.
    const started = spawnSync('/bin/sh', ['-c', 'sleep 60 >/dev/null 2>&1 & echo $!'], {
      env: env.env,
      encoding: 'utf8',
    });
    const grandchild = Number(started.stdout.trim());
    const first = spawn('sleep', ['60'], {
      env: { XDG_RUNTIME_DIR: env.runtimeDir, PATH: process.env.PATH },
      stdio: 'ignore',
    });
    const bystander = spawn('sleep', ['60'], { env: other.env, stdio: 'ignore' });
    // 'spawn' comes once exec succeeded: before, /proc shows the forked parent's environment.
    await Promise.all([first, bystander].map((p) => new Promise((r) => p.once('spawn', r))));
    const firstExit = new Promise((r) => first.once('exit', (_code, signal) => r(signal)));
    try {
      expect(processesWithRuntimeDir(env.runtimeDir).sort()).toEqual(
        [grandchild, first.pid!].sort(),
      );
      await env.dispose();
      expect(alive(grandchild)).toBe(false);
      expect(await firstExit).toBe('SIGTERM');
      expect(fs.existsSync(env.root)).toBe(false);
      expect(alive(bystander.pid!)).toBe(true);
    } finally {
      await other.dispose();
    }
    expect(bystander.killed || bystander.signalCode !== null || !alive(bystander.pid!)).toBe(true);
  });

  it('disposeNow stops every process of the environment at once and removes it, for an exit on a signal', async () => {
    const env = new DaemonEnv();
    const other = new DaemonEnv();
    const tracked = spawn('sleep', ['60'], { stdio: 'ignore' });
    const untracked = spawn('sleep', ['60'], { env: env.env, stdio: 'ignore' });
    const bystander = spawn('sleep', ['60'], { env: other.env, stdio: 'ignore' });
    const all = [tracked, untracked, bystander];
    await Promise.all(all.map((p) => new Promise((r) => p.once('spawn', r))));
    const exits = all.map((p) => new Promise((r) => p.once('exit', (_code, signal) => r(signal))));
    try {
      env.track(tracked.pid!);
      expect(DaemonEnv.live.has(env)).toBe(true);
      env.disposeNow();
      // Synchronous: the directory is gone and the signals are sent when it returns.
      expect(fs.existsSync(env.root)).toBe(false);
      expect(DaemonEnv.live.has(env)).toBe(false);
      expect(await exits[0]).toBe('SIGKILL');
      expect(await exits[1]).toBe('SIGKILL');
      expect(alive(bystander.pid!)).toBe(true);
    } finally {
      await other.dispose();
      for (const p of all) if (p.exitCode === null && p.signalCode === null) p.kill('SIGKILL');
    }
    expect(await exits[2]).toBe('SIGTERM');
  });
});

import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TurnStore } from './turn-store.js';
import { captureLogger, testSessionMeta, testTurn } from '../test-support/history.js';

// One daemon per history, by a kernel lock on `history.lock` held for the daemon's life: what
// the lock file says (a PID) never decides, the lock does.

const locking = createRequire(import.meta.url).resolve('fs-native-extensions');

let root: string;
let dir: string;
let lines: string[];
const stores: TurnStore[] = [];
const children: ChildProcess[] = [];

function openStore(opts: Record<string, unknown> = {}): TurnStore {
  const s = TurnStore.open({ dir, log: captureLogger(lines), ...opts });
  stores.push(s);
  return s;
}

/**
 * Another process holding the history's lock the way a daemon does (its PID in the file);
 * resolves once it holds it.
 */
async function lockHolder(): Promise<ChildProcess> {
  const script = `
    const fs = require('node:fs');
    const { tryLock } = require(${JSON.stringify(locking)});
    const fd = fs.openSync(${JSON.stringify(`${dir}.lock`)}, 'a+');
    if (!tryLock(fd)) process.exit(3);
    fs.writeFileSync(${JSON.stringify(`${dir}.lock`)}, process.pid + '\\n');
    process.stdout.write('locked\\n');
    setInterval(() => {}, 1 << 30);`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  children.push(child);
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d: Buffer) => {
      if (d.toString().includes('locked')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`the lock holder exited (${code})`)));
  });
  return child;
}

/** Whether another process can take the lock now. */
async function lockableElsewhere(): Promise<boolean> {
  const script = `
    const fd = require('node:fs').openSync(${JSON.stringify(`${dir}.lock`)}, 'a+');
    process.stdout.write(String(require(${JSON.stringify(locking)}).tryLock(fd)));`;
  const child = spawn(process.execPath, ['-e', script], { stdio: ['ignore', 'pipe', 'inherit'] });
  let out = '';
  child.stdout!.on('data', (d: Buffer) => (out += d.toString()));
  await new Promise((r) => child.once('exit', r));
  return out === 'true';
}

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'clippy-lock-'));
  dir = join(root, 'history');
  lines = [];
});
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  for (const c of children.splice(0)) {
    if (c.exitCode === null && c.signalCode === null) {
      c.kill('SIGKILL');
      await new Promise((r) => c.once('exit', r));
    }
  }
  rmSync(root, { recursive: true, force: true });
});

describe('the history lock', () => {
  it('a lock file naming a live process that holds no lock (a reused PID) does not keep history off', async () => {
    writeFileSync(`${dir}.lock`, `${process.ppid}\n`);
    const s = openStore();
    expect(readFileSync(`${dir}.lock`, 'utf8').trim()).toBe(String(process.pid));
    expect(await s.persistSession(testSessionMeta('aaaaaa'))).toBe(true);
  });

  it('a predecessor still dying after kill -9: the next one waits for its lock and gets the history', async () => {
    const first = openStore();
    await first.persistSession(testSessionMeta('aaaaaa'));
    await first.persistTurn(testTurn('aaaaaa', 1, 'kept'));
    await first.close();
    const holder = await lockHolder();
    let waited = 0;
    // Killed when the wait begins: its lock goes only once the kernel has ended it.
    const s = openStore({
      onLockWait: () => {
        waited++;
        holder.kill('SIGKILL');
      },
    });
    expect(waited).toBe(1);
    expect(s.session('aaaaaa')!.turns.map((t) => t.meta.seq)).toEqual([1]);
    expect(lines.join('')).toMatch(/waiting for the history lock/);
  });

  it('a live holder: refused after a bounded wait, naming the lock and its holder', async () => {
    const holder = await lockHolder();
    expect(() => openStore({ lockWaitMs: 200 })).toThrow(
      new RegExp(
        `history is in use by another clippyd \\(pid ${holder.pid}, lock .*history\\.lock`,
      ),
    );
    // Two opens in one process conflict too: the lock belongs to the open file, not the PID.
    holder.kill('SIGKILL');
    await new Promise((r) => holder.once('exit', r));
    openStore();
    expect(() => openStore({ lockWaitMs: 100 })).toThrow(/in use by another clippyd/);
  });

  it('is held for the store’s life and released by close (the file stays)', async () => {
    const s = openStore();
    expect(await lockableElsewhere()).toBe(false);
    await s.close();
    expect(await lockableElsewhere()).toBe(true);
    expect(existsSync(`${dir}.lock`)).toBe(true);
  });
});

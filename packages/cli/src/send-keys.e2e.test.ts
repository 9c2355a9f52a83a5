import { spawn } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import { runClippy } from '@clippy/testkit/cli-pty';
import { TestDaemon } from '@clippy/testkit/daemon';
import { bins } from '@clippy/testkit/paths';
import { eventually, until } from '@clippy/testkit/until';

// Driving a menu from a script (issue 12): keys by name, single keys not wrapped in a paste,
// text from stdin. The fake program behaves as Codex's and Gemini's menus do: raw mode,
// application cursor keys and bracketed paste on, one key moves or picks.

/** A menu (`menu`) or a recorder of every input byte (`record`), as a program in a PTY. */
const PROGRAM = `
const fs = require('fs');
const [mode, log] = process.argv.slice(2);
process.stdin.setRawMode(true);
process.stdout.write('\\x1b[?1h\\x1b[?2004h');
const items = ['Yes', 'No', 'Maybe'];
let at = 0;
const draw = () => process.stdout.write('\\r\\x1b[J' + items.map((t, i) => (i === at ? '> ' : '  ') + (i + 1) + '. ' + t).join('  '));
if (mode === 'menu') draw(); else process.stdout.write('rec> ');
process.stdin.on('data', (b) => {
  fs.appendFileSync(log, b);
  if (mode !== 'menu') return;
  const s = b.toString('latin1');
  for (let i = 0; i < s.length; i++) {
    if (s.startsWith('\\x1bOB', i)) { at = Math.min(at + 1, 2); i += 2; }
    else if (s.startsWith('\\x1bOA', i)) { at = Math.max(at - 1, 0); i += 2; }
    else if (s[i] >= '1' && s[i] <= '3') { at = Number(s[i]) - 1; return pick(); }
    else if (s[i] === '\\r') return pick();
  }
  draw();
});
function pick() { fs.writeFileSync(log + '.choice', items[at]); process.stdout.write('\\r\\nCHOSE: ' + items[at] + '\\r\\n'); }
`;

let d: TestDaemon;
let c: ClippyClient;
let script: string;
beforeAll(async () => {
  d = await TestDaemon.start();
  c = await d.connect();
  script = join(d.env.root, 'program.cjs');
  writeFileSync(script, PROGRAM);
});
afterAll(async () => {
  await c?.close();
  await d?.stop();
});

async function start(name: string, mode: 'menu' | 'record'): Promise<string> {
  const log = join(d.env.root, `${name}.log`);
  writeFileSync(log, '');
  const r = await runClippy(
    ['new', '-d', '--name', name, '--', process.execPath, script, mode, log],
    d.env.env,
  );
  expect(r.code).toBe(0);
  await shown(name, mode === 'menu' ? '3. Maybe' : 'rec>');
  return log;
}

/**
 * Waits until the daemon's screen model shows `text`: the program's mode switches come before
 * it, so from then on keys are encoded for application cursor mode and text is pasted.
 */
async function shown(name: string, text: string): Promise<void> {
  await eventually(
    async () => {
      const a = await c.request('attach', { session: name, mode: 'observer' });
      await c.request('detach', { session: name });
      return Buffer.from(a.replay).toString('utf8').includes(text);
    },
    `${name} showing ${text}`,
    10_000,
  );
}

function recorded(log: string): string {
  return readFileSync(log, 'latin1');
}

describe('send --keys', () => {
  it('walks a menu in application cursor mode: Down Down Enter picks the third entry', async () => {
    const log = await start('menu', 'menu');
    const r = await runClippy(['send', 'menu', '--keys', 'Down', 'Down', 'Enter'], d.env.env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    await until(() => existsSync(`${log}.choice`), 'a choice');
    expect(readFileSync(`${log}.choice`, 'utf8')).toBe('Maybe');
    expect(recorded(log)).toBe('\x1bOB\x1bOB\r');
  });

  it('one digit is one key, never wrapped in a paste', async () => {
    const log = await start('digit', 'menu');
    expect((await runClippy(['send', 'digit', '--keys', '2'], d.env.env)).code).toBe(0);
    await until(() => existsSync(`${log}.choice`), 'a choice');
    expect(readFileSync(`${log}.choice`, 'utf8')).toBe('No');
    expect(recorded(log)).toBe('2');
  });

  it('C-c, M-x and unknown C- keys', async () => {
    const log = await start('ctl', 'record');
    expect((await runClippy(['send', 'ctl', '--keys', 'C-c', 'M-x', 'Esc'], d.env.env)).code).toBe(
      0,
    );
    await until(() => recorded(log).length >= 4, 'the keys arrive');
    expect(recorded(log)).toBe('\x03\x1bx\x1b');
    const bad = await runClippy(['send', 'ctl', '--keys', 'C-1'], d.env.env);
    expect(bad.code).not.toBe(0);
    expect(bad.stderr).toContain("'C-1' is not a key");
  });
});

describe('send TEXT', () => {
  it('pastes one line and several lines alike into a paste-mode program (keys are for --keys)', async () => {
    const log = await start('rec', 'record');
    expect((await runClippy(['send', 'rec', 'one line?', '--force'], d.env.env)).code).toBe(0);
    await until(() => recorded(log).includes('\x1b[201~'), 'the line arrives');
    expect(recorded(log)).toBe('\x1b[200~one line?\x1b[201~');
    expect((await runClippy(['send', 'rec', 'two\nlines', '--force'], d.env.env)).code).toBe(0);
    await until(() => recorded(log).includes('\x1b[201~'), 'the paste arrives');
    expect(recorded(log)).toBe('\x1b[200~one line?\x1b[201~\x1b[200~two\nlines\x1b[201~');
  });

  it('reads the text from stdin with -', async () => {
    const log = await start('stdin', 'record');
    const text = 'from stdin\nsecond line\n';
    const child = spawn(process.execPath, [bins.clippy, 'send', 'stdin', '-', '--force'], {
      env: d.env.env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    child.stdin.end(text);
    let err = '';
    child.stderr.on('data', (b: Buffer) => (err += b.toString()));
    const code = await new Promise<number | null>((r) => child.once('exit', r));
    expect(err).toBe('');
    expect(code).toBe(0);
    await until(() => recorded(log).includes('\x1b[201~'), 'the paste arrives');
    expect(recorded(log)).toBe(`\x1b[200~${text}\x1b[201~`);
  });

  it('refuses both TEXT and --keys, and neither, as a usage error', async () => {
    await start('none', 'record');
    expect((await runClippy(['send', 'none'], d.env.env)).code).toBe(64);
    expect((await runClippy(['send', 'none', 'x', '--keys', 'Enter'], d.env.env)).code).toBe(64);
  });
});

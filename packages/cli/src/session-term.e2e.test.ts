import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import fs from 'node:fs';
import path from 'node:path';
import { CliPty, runClippy } from '@clippy/testkit/cli-pty';
import { TestDaemon } from '@clippy/testkit/daemon';
import { until } from '@clippy/testkit/until';

// End-to-end: the real clippyd and `clippy` (needs `npm run build`). A session's TERM is
// xterm-256color whatever terminal started it, unless `--term` or the config file say otherwise.

/** Per test: a daemon and a few sessions on a loaded 2-core CI box. */
const E2E_TIMEOUT_MS = 60_000;
/** How long a session may take to start and write its TERM to a file. */
const SESSION_WRITE_TIMEOUT_MS = 15_000;

let daemon: TestDaemon;
let env: NodeJS.ProcessEnv;
const ptys: CliPty[] = [];

beforeEach(async () => {
  daemon = await TestDaemon.start();
  // The caller's terminal is a plain xterm (no 256 colours), as in the report.
  env = { ...daemon.env.env, TERM: 'xterm' };
}, E2E_TIMEOUT_MS);

afterEach(async () => {
  for (const p of ptys.splice(0)) await p.dispose();
  await daemon.stop();
}, E2E_TIMEOUT_MS);

/** Starts `new -d [extra] -- sh` that writes its $TERM to a file; resolves with what it wrote. */
async function sessionTerm(name: string, extra: string[] = [], callerEnv = env): Promise<string> {
  const file = path.join(daemon.env.root, `${name}.term`);
  const r = await runClippy(
    [
      'new',
      '-d',
      '--name',
      name,
      ...extra,
      '--',
      'sh',
      '-c',
      `printf %s "$TERM" > ${file}; sleep 300`,
    ],
    callerEnv,
  );
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  await until(
    () => fs.existsSync(file) && fs.statSync(file).size > 0,
    `${name} wrote $TERM`,
    SESSION_WRITE_TIMEOUT_MS,
  );
  return fs.readFileSync(file, 'utf8');
}

describe('the session’s TERM', { timeout: E2E_TIMEOUT_MS }, () => {
  it('is xterm-256color for new -d, whatever the caller’s TERM', async () => {
    expect(await sessionTerm('plain')).toBe('xterm-256color');
    const noTerm = { ...env };
    delete noTerm.TERM;
    expect(await sessionTerm('none', [], noTerm)).toBe('xterm-256color');
  });

  it('is xterm-256color for an attached new started from another terminal type', async () => {
    // (The PTY itself names its terminal xterm-256color: the shell line sets the caller's TERM.)
    const p = CliPty.shell(`TERM=vt100 $CLIPPY new -- sh -c 'echo "term=$TERM."; sleep 300'`, {
      env,
    });
    ptys.push(p);
    await p.waitFor('term=xterm-256color.');
  });

  it('is what --term or the config file’s "term" says (--term first)', async () => {
    expect(await sessionTerm('flag', ['--term', 'screen-256color'])).toBe('screen-256color');
    const config = path.join(env.XDG_CONFIG_HOME!, 'clippy', 'config.json');
    fs.mkdirSync(path.dirname(config), { recursive: true });
    fs.writeFileSync(config, JSON.stringify({ term: 'tmux-256color' }));
    expect(await sessionTerm('config')).toBe('tmux-256color');
    expect(await sessionTerm('both', ['--term', 'xterm'])).toBe('xterm');
  });

  it('refuses a TERM that is no terminal name, before starting anything', async () => {
    const r = await runClippy(['new', '-d', '--term', 'x term', '--', 'sleep', '9'], env);
    expect(r.stderr).toBe(
      "clippy: --term 'x term' is not a terminal type name (like xterm-256color)\n",
    );
    expect(r.code).toBe(64);
    const config = path.join(env.XDG_CONFIG_HOME!, 'clippy', 'config.json');
    fs.mkdirSync(path.dirname(config), { recursive: true });
    fs.writeFileSync(config, JSON.stringify({ term: 256 }));
    const bad = await runClippy(['new', '-d', '--', 'sleep', '9'], env);
    expect(bad.stderr).toBe(
      `clippy: ${config}:1: term: must be a string like "xterm-256color" (invalid_config)\n`,
    );
    expect(bad.code).toBe(64);
    const ls = await runClippy(['ls', '--json'], env);
    expect(JSON.parse(ls.stdout).sessions).toEqual([]);
  });
});

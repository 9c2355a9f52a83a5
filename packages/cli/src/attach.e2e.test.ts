import fs from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { newBashSession } from '@clippy/testkit/detached-session';
import { CliPty, runClippy } from '@clippy/testkit/cli-pty';
import type { TestDaemon } from '@clippy/testkit/daemon';
import { emptyDaemonPerTest } from '@clippy/testkit/daemon-per-file';
import { eventually } from '@clippy/testkit/until';

/** Per test: several real processes start and stop; a loaded 2-core CI box needs the room. */
const E2E_TIMEOUT_MS = 60_000;

// End-to-end: the real clippyd, the real `clippy` binary in real PTYs (needs `npm run build`).

const PROMPT = 'PROMPT$ ';
let daemon: TestDaemon;
let env: NodeJS.ProcessEnv;
const ptys: CliPty[] = [];

function attach(session: string, extra: string[] = [], size = { cols: 100, rows: 30 }): CliPty {
  const p = CliPty.clippy(['attach', session, ...extra], { env, ...size });
  ptys.push(p);
  return p;
}

/** `clippy attach SESSION` in a shell that prints its exit code and `stty -a` after it. */
function attachInShell(session: string): CliPty {
  const p = CliPty.shell(`$CLIPPY attach ${session}; echo "rc=$?"; stty -a; echo END-OF-STTY`, {
    env,
  });
  ptys.push(p);
  return p;
}

/** A bash without rc files and with a fixed prompt, created detached by the real `clippy new -d`. */
async function newBashByCli(name: string): Promise<string> {
  const r = await runClippy(
    ['new', '-d', '--name', name, '--', 'bash', '--norc', '--noprofile'],
    env,
  );
  expect(r.stderr).toBe('');
  expect(r.code).toBe(0);
  const [shown, id] = r.stdout.trim().split('\t');
  expect(shown).toBe(name);
  expect(id).toMatch(/^\S+$/);
  return id!;
}

/**
 * The same through a client of the daemon, for the tests whose subject is not `new` (a CLI
 * process costs about a second of CPU on a loaded 2-core machine, a request nothing).
 */
const newBash = (name: string) => newBashSession(daemon, name, env);

/** A detached session running `sh -c line` (as `clippy new -d -- sh -c line`), through a client. */
async function newShell(name: string, line: string): Promise<void> {
  const c = await daemon.connect();
  try {
    await c.request('spawn', {
      command: 'sh',
      args: ['-c', line],
      name,
      cwd: process.cwd(),
      env: env as Record<string, string>,
    });
  } finally {
    await c.close();
  }
}

/** The daemon's session list, through a client (for set-up checks and polling). */
async function sessions() {
  const c = await daemon.connect();
  try {
    return (await c.request('list_sessions', {})).sessions;
  } finally {
    await c.close();
  }
}

// One daemon for the file, emptied after each test (one test kills it: the next gets a new one).
emptyDaemonPerTest((d) => {
  daemon = d;
  env = { ...daemon.env.env, PS1: PROMPT, TERM: 'xterm-256color' };
});

afterEach(async () => {
  for (const p of ptys.splice(0)) await p.dispose();
}, E2E_TIMEOUT_MS);

describe('clippy attach', { timeout: E2E_TIMEOUT_MS }, () => {
  it('types into the session, detaches with Ctrl-], and replays the same screen on re-attach', async () => {
    await newBashByCli('t1');
    const a = attach('t1');
    await a.waitFor(PROMPT);
    a.write('echo abc$((6*7))xyz\r');
    await a.waitFor('abc42xyz');
    a.write('\x1d');
    await a.waitFor('[detached from t1]');
    expect(await a.waitExit()).toBe(0);

    const b = attach('t1');
    await b.waitFor('abc42xyz');
    const typed = b.screen().findIndex((l) => l.includes('echo abc$((6*7))xyz'));
    const answer = b.screen().findIndex((l) => l === 'abc42xyz');
    expect(typed).toBeGreaterThanOrEqual(0);
    expect(answer).toBe(typed + 1);
    b.write('\x1d');
    expect(await b.waitExit()).toBe(0);
  });

  it('shows each client what the other types', async () => {
    await newBash('two');
    const a = attach('two');
    const b = attach('two');
    await a.waitFor(PROMPT);
    await b.waitFor(PROMPT);
    a.write('echo from-a-$((1+1))\r');
    await b.waitFor('from-a-2');
    b.write('echo from-b-$((2+1))\r');
    await a.waitFor('from-b-3');
    const r = await runClippy(['ls', '--json'], env);
    expect(JSON.parse(r.stdout).sessions[0].clients).toBe(2);
  });

  it('sends the terminal size at start and on every SIGWINCH', async () => {
    await newBash('size');
    const a = attach('size', [], { cols: 90, rows: 25 });
    await a.waitFor(PROMPT);
    a.write('stty size\r');
    await a.waitFor('25 90');
    a.resize(120, 40);
    // The resize travels client -> daemon -> PTY: asked once the daemon has resized the session.
    const c = await daemon.connect();
    try {
      await eventually(async () => {
        const s = (await c.request('list_sessions', {})).sessions.find((x) => x.name === 'size');
        return s?.cols === 120 && s.rows === 40;
      }, 'the session resized to 120x40');
    } finally {
      await c.close();
    }
    a.write('stty size\r');
    await a.waitFor('40 120');
  });

  it('exits with the session’s exit code when the session ends', async () => {
    await newBash('ends');
    const a = attach('ends');
    await a.waitFor(PROMPT);
    a.write('exit 3\r');
    expect(await a.waitExit()).toBe(3);
    expect(a.text).not.toContain('detached');
  });

  it('reports a signal death as 128+signo', async () => {
    await newBash('sig');
    const a = attach('sig');
    await a.waitFor(PROMPT);
    const c = await daemon.connect();
    try {
      await c.request('kill', { session: 'sig', signal: 'SIGKILL' });
    } finally {
      await c.close();
    }
    expect(await a.waitExit()).toBe(137);
  });

  it('restores the terminal: cooked mode, main screen, cursor shown', async () => {
    await newShell(
      'alt',
      'echo READY; read x; printf "\\033[?1049h\\033[?25l\\033[?1000hIN-ALT-SCREEN"; sleep 60',
    );
    const p = attachInShell('alt');
    await p.waitFor('READY');
    p.write('\r');
    await p.waitFor('IN-ALT-SCREEN');
    expect(p.cursor.alternate).toBe(true);
    p.write('\x1d');
    await p.waitFor('END-OF-STTY', { in: 'output' });
    expect(await p.waitExit()).toBe(0);
    await p.parsed();
    expect(p.cursor.alternate).toBe(false);
    expect(p.output).toContain('\x1b[?1049l');
    expect(p.output).toContain('\x1b[?1000l');
    expect(p.output.lastIndexOf('\x1b[?25h')).toBeGreaterThan(p.output.lastIndexOf('\x1b[?25l'));
    const stty = p.text.slice(p.text.indexOf('rc=0'));
    expect(stty).toMatch(/(^|\s)icanon(\s|$)/m);
    expect(stty).toMatch(/(^|\s)echo(\s|$)/m);
    expect(stty).not.toMatch(/-icanon/);
  });

  it('gives the terminal the program’s bytes as they are (a bare line feed stays one), and output processing back after', async () => {
    await newShell(
      'stairs',
      // Without onlcr the PTY passes the program's line feed on as it is: the cursor goes
      // down a row and stays in its column, as it does on a terminal running it directly.
      'echo READY; read x; stty -onlcr; printf "STAIR-ab\\nSTAIR-cd"; sleep 60',
    );
    const p = attachInShell('stairs');
    await p.waitFor('READY');
    p.write('\r');
    await p.waitFor('STAIR-cd');
    const row = p.screen().findIndex((l) => l.startsWith('STAIR-ab'));
    expect(row).toBeGreaterThanOrEqual(0);
    expect(p.screen()[row + 1]).toBe(`${' '.repeat('STAIR-ab'.length)}STAIR-cd`);
    p.write('\x1d');
    await p.waitFor('END-OF-STTY', { in: 'output' });
    const stty = p.text.slice(p.text.indexOf('rc=0'));
    expect(stty).toMatch(/(^|\s)opost(\s|$)/m);
    expect(stty).not.toMatch(/-opost/);
  });

  it('restores the terminal and exits 143 on SIGTERM', async () => {
    await newBash('term');
    const p = attachInShell('term');
    await p.waitFor(PROMPT);
    // The shell runs clippy as its only child: find it by the shell's PID.
    const children = fs
      .readFileSync(`/proc/${p.pid}/task/${p.pid}/children`, 'utf8')
      .trim()
      .split(/\s+/);
    expect(children).toHaveLength(1);
    process.kill(Number(children[0]), 'SIGTERM');
    await p.waitFor('END-OF-STTY', { in: 'output' });
    expect(p.text).toContain('rc=143');
    const stty = p.text.slice(p.text.indexOf('rc=143'));
    expect(stty).toMatch(/(^|\s)icanon(\s|$)/m);
    expect(stty).not.toMatch(/-icanon/);
    expect(stty).toMatch(/(^|\s)opost(\s|$)/m);
    // The session itself keeps running.
    const r = await runClippy(['ls', '--json'], env);
    expect(JSON.parse(r.stdout).sessions.map((s: { name: string }) => s.name)).toEqual(['term']);
  });

  it('exits 69 with the terminal restored when the daemon dies', async () => {
    await newBash('dies');
    const p = attachInShell('dies');
    await p.waitFor(PROMPT);
    process.kill(daemon.pid, 'SIGKILL');
    await p.waitFor('END-OF-STTY', { in: 'output' });
    expect(p.text).toMatch(/daemon/);
    const stty = p.text.slice(p.text.indexOf('rc=69'));
    expect(stty).not.toMatch(/-icanon/);
    expect(stty).toMatch(/(^|\s)icanon(\s|$)/m);
    expect(stty).toMatch(/(^|\s)opost(\s|$)/m);
  });

  it('without a terminal: attach and new (attaching) are refused at once; an observer streams until the session ends', async () => {
    await newBash('piped');
    // stdin is /dev/null, as in `clippy attach piped </dev/null` from a script.
    // Two refusals that change nothing, side by side (each a CLI process).
    const [refused, started] = await Promise.all([
      runClippy(['attach', 'piped'], env),
      runClippy(['new', '--name', 'never', '--', 'sleep', '60'], env),
    ]);
    expect(refused.stderr).toBe(
      'clippy: attach needs a terminal, and stdin is not one (to watch without one: clippy attach --observer piped; to type into it: clippy send)\n',
    );
    expect(refused.code).toBe(1);
    expect(started.stderr).toBe(
      'clippy: new (it attaches) needs a terminal, and stdin is not one (start it detached: clippy new -d)\n',
    );
    expect(started.code).toBe(1);
    expect((await sessions()).map((s) => s.name)).toEqual(['piped']);

    // An observer needs no terminal: it writes the session's output until the session ends.
    const watching = runClippy(['attach', '--observer', 'piped'], env, E2E_TIMEOUT_MS);
    await eventually(
      async () => (await sessions())[0]!.clients >= 1,
      'the observer attached',
      E2E_TIMEOUT_MS / 2,
    );
    const c = await daemon.connect();
    try {
      await c.request('send', {
        session: 'piped',
        text: 'echo seen-$((6*7)); exit 4',
        enter: true,
      });
    } finally {
      await c.close();
    }
    const watched = await watching;
    expect(watched.stdout).toContain('seen-42');
    expect(watched.code).toBe(4);
  });

  it('clippy new attaches at once and passes the exit code through', async () => {
    const p = CliPty.clippy(['new', '--', 'sh', '-c', 'echo hi-from-new; read x; exit 7'], { env });
    ptys.push(p);
    await p.waitFor('hi-from-new');
    p.write('\r');
    expect(await p.waitExit()).toBe(7);
  });

  it('a client that stops reading does not stall another attached client', async () => {
    await newBash('flow');
    const slow = attach('flow');
    const fast = attach('flow');
    await slow.waitFor(PROMPT);
    await fast.waitFor(PROMPT);
    slow.pause(); // its clippy blocks writing to the terminal and stops acknowledging
    const mark = fast.text.length;
    fast.write('seq 1 200000; echo END-$((40+2))\r');
    await fast.waitFor('END-42', { in: 'output', after: mark, timeoutMs: 20_000 });
    expect(fast.text.slice(mark)).toContain('199999');
    // The stalled client catches up once its terminal reads again (or was told it fell behind).
    slow.resume();
    await slow.waitFor(/END-42|detached from flow/, { in: 'output', timeoutMs: 20_000 });
  });
});

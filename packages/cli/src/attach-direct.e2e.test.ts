import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import pty from 'node-pty';
import { CliPty, runClippy } from '@clippy/testkit/cli-pty';
import { bins } from '@clippy/testkit/paths';
import type { TestDaemon } from '@clippy/testkit/daemon';
import { emptyDaemonPerTest } from '@clippy/testkit/daemon-per-file';
import { spawnDetached } from '@clippy/testkit/detached-session';
import { DESKTOP_VARS, envWithout } from '@clippy/testkit/env';
import { eventually as untilEventually } from '@clippy/testkit/until';

/** Per test: a daemon, a few sessions and attached terminals; a loaded 2-core CI box needs room. */
const E2E_TIMEOUT_MS = 60_000;

// End-to-end: the real clippyd and the real `clippy attach` in real PTYs (needs `npm run build`).
// Direct attach: the daemon reads and writes the attach client's terminal itself; the client
// only waits. What a user would check: it is used, nothing is lost, keys and the detach key
// work, focus is followed, the terminal comes back as it was, a stuck or killed client harms
// nobody, and relay mode remains where direct mode cannot be.

const PROMPT = 'PROMPT$ ';
let daemon: TestDaemon;
let env: NodeJS.ProcessEnv;
const ptys: CliPty[] = [];

function track(p: CliPty): CliPty {
  ptys.push(p);
  return p;
}

function attach(session: string, extraEnv: NodeJS.ProcessEnv = {}): CliPty {
  return track(CliPty.clippy(['attach', session], { env: { ...env, ...extraEnv } }));
}

/** `clippy attach NAME` in sh, then the exit code and `stty -a` once it is over. */
function attachInShell(session: string): CliPty {
  return track(
    CliPty.shell(`$CLIPPY attach ${session}; echo "rc=$?"; stty -a; echo END-OF-STTY`, {
      env,
      cols: 100,
      rows: 30,
    }),
  );
}

/** A detached session running `command args`, as `clippy new -d` makes it (see spawnDetached). */
const newSession = (name: string, command: string, args: string[]) =>
  spawnDetached(daemon, name, command, args, env);

const newBash = (name: string) => newSession(name, 'bash', ['--norc', '--noprofile']);

/** Checks that need a command or a request: polled, for longer than `until`'s default. */
const EVENTUALLY_MS = 15_000;
const eventually = (cond: () => boolean | Promise<boolean>, what: string) =>
  untilEventually(cond, what, EVENTUALLY_MS);

/** The terminal device a process has as its stdin. */
function terminalOf(pid: number): string {
  return fs.realpathSync(`/proc/${pid}/fd/0`);
}

/** The terminal devices the daemon holds open. */
function daemonTerminals(): string[] {
  const dir = `/proc/${daemon.pid}/fd`;
  const out: string[] = [];
  for (const fd of fs.readdirSync(dir)) {
    try {
      // A terminal whose other side closed since reads "/dev/pts/N (deleted)": still held.
      const target = fs.readlinkSync(path.join(dir, fd)).replace(/ \(deleted\)$/, '');
      if (target.startsWith('/dev/pts/')) out.push(target);
    } catch {
      // Closed meanwhile.
    }
  }
  return out;
}

/** The attach clients as the daemon lists them. */
async function clients(): Promise<
  { name: string; pid: number | null; terminal?: boolean; mode: string }[]
> {
  const c = await daemon.connect();
  try {
    return (await c.request('list_clients', {})).clients;
  } finally {
    await c.close();
  }
}

/** The session the daemon names as focused (what `clippy focused` asks it first). */
async function focusedName(): Promise<string | null> {
  const c = await daemon.connect();
  try {
    return (await c.request('focused', {})).name;
  } finally {
    await c.close();
  }
}

/** The sh PTY runs clippy as its only child: its PID. */
function childOf(shellPid: number): number {
  const children = fs
    .readFileSync(`/proc/${shellPid}/task/${shellPid}/children`, 'utf8')
    .trim()
    .split(/\s+/);
  expect(children).toHaveLength(1);
  return Number(children[0]);
}

// One daemon for the file, emptied after each test (one test kills it: the next gets a new one).
emptyDaemonPerTest((d) => {
  daemon = d;
  env = {
    ...envWithout(daemon.env.env, DESKTOP_VARS, ['CLIPPY_ATTACH_RELAY']),
    PS1: PROMPT,
    TERM: 'xterm-256color',
  };
});

afterEach(async () => {
  for (const p of ptys.splice(0)) await p.dispose();
}, E2E_TIMEOUT_MS);

describe(
  'clippy attach, direct (the daemon drives the terminal)',
  { timeout: E2E_TIMEOUT_MS },
  () => {
    it('is used for a local terminal: the daemon holds the terminal open, typing and echo work, the detach key is its', async () => {
      await newBash('d1');
      const a = attach('d1');
      await a.waitFor(PROMPT);
      const tty = terminalOf(a.pid);
      expect(await clients()).toMatchObject([{ name: 'd1', pid: a.pid, terminal: true }]);
      expect(daemonTerminals()).toContain(tty);
      a.write('echo typed-$((6*7))-here\r');
      await a.waitFor('typed-42-here');
      a.write('\x1d');
      await a.waitFor('[detached from d1]');
      expect(await a.waitExit()).toBe(0);
      expect(daemonTerminals()).not.toContain(tty);
      expect(await clients()).toEqual([]);
    });

    it('CLIPPY_ATTACH_RELAY=1 keeps every byte going through the attach client', async () => {
      await newBash('relay');
      const a = attach('relay', { CLIPPY_ATTACH_RELAY: '1' });
      await a.waitFor(PROMPT);
      expect(await clients()).toMatchObject([{ name: 'relay', terminal: false }]);
      expect(daemonTerminals()).not.toContain(terminalOf(a.pid));
      a.write('echo relayed-$((1+2))\r');
      await a.waitFor('relayed-3');
      a.write('\x1d');
      expect(await a.waitExit()).toBe(0);
    });

    it('shows a direct and a relayed client the same output, and each sees what the other types', async () => {
      await newBash('both');
      const direct = attach('both');
      const relayed = attach('both', { CLIPPY_ATTACH_RELAY: '1' });
      await direct.waitFor(PROMPT);
      await relayed.waitFor(PROMPT);
      const listed = await clients();
      expect(listed.map((c) => c.terminal).sort()).toEqual([false, true]);
      direct.write('seq 1 3000 | tail -n 3; echo from-direct\r');
      await relayed.waitFor('from-direct');
      relayed.write('echo from-relay-$((2*2))\r');
      await direct.waitFor('from-relay-4');
      await relayed.waitFor('from-relay-4');
      // Both screens show the same last lines once each has drawn what it was sent (a screen
      // read between a terminal's clear and its redraw is caught half-way, not different).
      const numbers = (p: CliPty) => p.screen().filter((l) => /^\d+$/.test(l));
      await eventually(
        () => [direct, relayed].every((p) => numbers(p).join() === '2998,2999,3000'),
        'both screens showing 2998, 2999, 3000',
      ).catch((err: unknown) => {
        // Each screen whole: which lines took the place of the missing numbers.
        throw new Error(
          `${String(err)}: direct ${JSON.stringify(numbers(direct))}, relayed ${JSON.stringify(numbers(relayed))}\n` +
            `direct's screen:\n${direct.screen().join('\n')}\nrelayed's screen:\n${relayed.screen().join('\n')}`,
        );
      });
    });

    it('replay and live output lose nothing and repeat nothing when attaching mid-output', async () => {
      // 600 lines 3 ms apart (node's timers: no process per line), a file made at the 100th.
      const counting = path.join(daemon.env.root, 'counting');
      await newSession('count', process.execPath, [
        '-e',
        `let i = 0;
        const t = setInterval(() => {
          console.log('L' + ++i);
          if (i === 100) require('fs').writeFileSync(${JSON.stringify(counting)}, '');
          if (i < 600) return;
          clearInterval(t);
          console.log('COUNT-DONE');
          setTimeout(() => {}, 60000);
        }, 3);`,
      ]);
      // Attach while it counts: part of the lines come in the replay, the rest live.
      await eventually(() => fs.existsSync(counting), 'the session is counting');
      const a = attach('count');
      await a.waitFor('COUNT-DONE', { in: 'output' });
      const seen = [...a.text.matchAll(/L(\d+)\b/g)].map((m) => Number(m[1]));
      expect(seen).toEqual(Array.from({ length: 600 }, (_, i) => i + 1));
      expect((await clients())[0]?.terminal).toBe(true);
    });

    it('the detach key inside a paste or after a key sequence detaches; only what came before reaches the program', async () => {
      const file = path.join(daemon.env.root, 'typed.bin');
      await newSession('keys', process.execPath, [
        '-e',
        `process.stdin.setRawMode(true); console.log('KEYS-READY'); process.stdin.on('data', (d) => require('fs').appendFileSync(${JSON.stringify(file)}, d));`,
      ]);
      const a = attach('keys');
      await a.waitFor('KEYS-READY');
      a.write('\x1b[200~pasted\x1dlost\x1b[201~');
      await a.waitFor('[detached from keys]');
      expect(await a.waitExit()).toBe(0);
      await eventually(() => fs.existsSync(file), 'the program got keys');
      expect(fs.readFileSync(file, 'latin1')).toBe('\x1b[200~pasted');

      const b = attach('keys');
      await b.waitFor('KEYS-READY');
      // The kitty keyboard protocol's spelling of Ctrl-], after an arrow key in the same read.
      b.write('\x1b[A\x1b[93;5uafter');
      await b.waitFor('[detached from keys]');
      expect(await b.waitExit()).toBe(0);
      await eventually(
        () => fs.readFileSync(file, 'latin1').endsWith('\x1b[A'),
        'the program got the arrow key',
      );
      expect(fs.readFileSync(file, 'latin1')).toBe('\x1b[200~pasted\x1b[A');
    });

    it('focus reports from the terminal reach clippy focused and stay out of the program', async () => {
      await newBash('seen');
      const a = attach('seen');
      await a.waitFor(PROMPT);
      expect(a.output).toContain('\x1b[?1004h');
      a.write('\x1b[I');
      // Polled through a client; then what the user runs, `clippy focused`, says the same.
      await eventually(async () => (await focusedName()) === 'seen', 'the daemon names it');
      const r = await runClippy(['focused', '--json'], env);
      expect(r.code).toBe(0);
      expect(JSON.parse(r.stdout).name).toBe('seen');
      a.write('\x1b[O');
      await eventually(async () => (await focusedName()) === null, 'focus out clears it');
      expect((await runClippy(['focused', '--json'], env)).code).not.toBe(0);
      a.write('echo clean-$((3+4))\r');
      await a.waitFor('clean-7');
      expect(a.text).not.toMatch(/\[I|\[O/);
    });

    it('gives the terminal back on detach: main screen, mouse and bracketed paste off, cursor shown, cooked mode', async () => {
      await newSession('tui', 'sh', [
        '-c',
        'echo READY; read x; printf "\\033[?1049h\\033[?25l\\033[?1000h\\033[?2004hIN-ALT"; sleep 60',
      ]);
      const p = attachInShell('tui');
      await p.waitFor('READY');
      p.write('\r');
      await p.waitFor('IN-ALT');
      expect(p.cursor.alternate).toBe(true);
      expect((await clients())[0]?.terminal).toBe(true);
      p.write('\x1d');
      await p.waitFor('END-OF-STTY', { in: 'output' });
      expect(p.text).toContain('rc=0');
      await p.parsed();
      expect(p.cursor.alternate).toBe(false);
      const tail = p.output.slice(p.output.indexOf('IN-ALT'));
      for (const off of ['\x1b[?1049l', '\x1b[?1000l', '\x1b[?2004l', '\x1b[?1004l'])
        expect(tail).toContain(off);
      expect(tail.lastIndexOf('\x1b[?25h')).toBeGreaterThan(tail.lastIndexOf('\x1b[?25l'));
      const stty = p.text.slice(p.text.indexOf('rc=0'));
      expect(stty).toMatch(/(^|\s)icanon(\s|$)/m);
      expect(stty).toMatch(/(^|\s)opost(\s|$)/m);
    });

    it('puts the session’s last output on the terminal before the attach ends with its exit code', async () => {
      await newSession('last', 'sh', ['-c', 'read x; seq 1 60000; echo LAST-WORDS; exit 4']);
      const p = attachInShell('last');
      await eventually(async () => (await clients()).length === 1, 'attached');
      p.write('\r');
      // The exit code the shell prints is all this test reads of what follows the attach.
      await p.waitFor(/rc=\d+/, { in: 'output' });
      const text = p.text;
      expect(text).toContain('rc=4');
      expect(text.indexOf('LAST-WORDS')).toBeGreaterThan(text.indexOf('59999'));
      expect(text.indexOf('LAST-WORDS')).toBeLessThan(text.indexOf('rc=4'));
    });

    it('a terminal that stops reading stalls neither the daemon nor other clients, and is let go', async () => {
      await newBash('flood');
      await newBash('other');
      const stuck = attach('flood');
      const fast = attach('flood', { CLIPPY_ATTACH_RELAY: '1' });
      const other = attach('other');
      await stuck.waitFor(PROMPT);
      await fast.waitFor(PROMPT);
      await other.waitFor(PROMPT);
      stuck.pause(); // the outer terminal is never read: the daemon's writes to it queue up
      const mark = fast.text.length;
      fast.write('seq 1 400000; echo FLOOD-$((40+2))\r');
      await fast.waitFor('FLOOD-42', { in: 'output', after: mark, timeoutMs: 30_000 });
      expect(fast.text.slice(mark)).toContain('399999');
      other.write('echo still-$((5*5))\r');
      await other.waitFor('still-25');
      const r = await runClippy(['ls', '--json'], env);
      expect(r.code).toBe(0);
      // Fallen 8 MiB behind, the stuck terminal was detached (given back, then told why).
      stuck.resume();
      await stuck.waitFor(/FLOOD-42|detached from flood/, { in: 'output', timeoutMs: 20_000 });
    });

    it('a killed attach client leaves no terminal open in the daemon, and the session runs on', async () => {
      await newBash('killed');
      const p = attachInShell('killed');
      await p.waitFor(PROMPT);
      const client = childOf(p.pid);
      const tty = terminalOf(client);
      expect(daemonTerminals()).toContain(tty);
      process.kill(client, 'SIGKILL');
      await eventually(() => !daemonTerminals().includes(tty), 'the daemon closed the terminal');
      expect(await clients()).toEqual([]);
      const r = await runClippy(['ls', '--json'], env);
      expect(JSON.parse(r.stdout).sessions[0]).toMatchObject({ name: 'killed', state: 'idle' });
      const again = attach('killed');
      await again.waitFor(PROMPT);
      again.write('echo alive-$((8*8))\r');
      await again.waitFor('alive-64');
    });

    it('restores the terminal blindly when the daemon dies under it: main screen, mouse off, exit 69', async () => {
      await newSession('dies', 'sh', [
        '-c',
        'echo READY; read x; printf "\\033[?1049h\\033[?1000hIN-ALT"; sleep 60',
      ]);
      const p = attachInShell('dies');
      await p.waitFor('READY');
      p.write('\r');
      await p.waitFor('IN-ALT');
      process.kill(daemon.pid, 'SIGKILL');
      await p.waitFor('END-OF-STTY', { in: 'output' });
      expect(p.text).toContain('rc=69');
      await p.parsed();
      expect(p.cursor.alternate).toBe(false);
      expect(p.output.slice(p.output.indexOf('IN-ALT'))).toContain('\x1b[?1000l');
      expect(p.text.slice(p.text.indexOf('rc=69'))).toMatch(/(^|\s)icanon(\s|$)/m);
    });

    it('an observer is direct too: it watches, its keys go nowhere, its detach key works', async () => {
      await newBash('watched');
      const typist = attach('watched');
      const watcher = track(CliPty.clippy(['attach', 'watched', '--observer'], { env }));
      await typist.waitFor(PROMPT);
      await watcher.waitFor(PROMPT);
      const listed = await clients();
      expect(listed.find((c) => c.pid === watcher.pid)).toMatchObject({
        terminal: true,
        mode: 'observer',
      });
      watcher.write('echo from-observer\r');
      typist.write('echo from-typist-$((9*9))\r');
      await watcher.waitFor('from-typist-81');
      expect(typist.text).not.toContain('from-observer');
      watcher.write('\x1d');
      await watcher.waitFor('[detached from watched]');
      expect(await watcher.waitExit()).toBe(0);
    });

    it('an observer never resizes the session, direct or relayed (its terminal is larger)', async () => {
      await newBash('sized');
      const sizeOf = async () => {
        const c = await daemon.connect();
        try {
          const s = (await c.request('list_sessions', {})).sessions.find((x) => x.name === 'sized');
          return `${s?.cols}x${s?.rows}`;
        } finally {
          await c.close();
        }
      };
      const before = await sizeOf();
      for (const extra of [{}, { CLIPPY_ATTACH_RELAY: '1' }]) {
        const watcher = track(
          CliPty.clippy(['attach', 'sized', '--observer'], {
            env: { ...env, ...extra },
            cols: 200,
            rows: 50,
          }),
        );
        await watcher.waitFor(PROMPT);
        expect(await sizeOf()).toBe(before);
        watcher.write('\x1d');
        expect(await watcher.waitExit()).toBe(0);
      }
      expect(before).not.toBe('200x50');
    });

    it('a terminal that closes under the attach is let go; the daemon and the session go on', async () => {
      await newBash('closing');
      const outer = pty.spawn(process.execPath, [bins.clippy, 'attach', 'closing'], {
        name: 'xterm-256color',
        cols: 100,
        rows: 30,
        env: env as Record<string, string>,
      });
      let seen = '';
      outer.onData((d) => (seen += d));
      try {
        await eventually(() => seen.includes(PROMPT), 'the prompt on the outer terminal');
        const tty = terminalOf(outer.pid);
        expect(daemonTerminals()).toContain(tty);
        // The terminal emulator goes away: its side of the PTY closes (the attach gets SIGHUP,
        // the daemon's reads and writes fail).
        // node-pty's destroy() (not in its typings) closes the master, then signals the process.
        (outer as unknown as { destroy(): void }).destroy();
        await eventually(() => !daemonTerminals().includes(tty), 'the daemon closed the terminal');
        await eventually(async () => (await clients()).length === 0, 'no client left');
      } finally {
        try {
          process.kill(outer.pid, 'SIGKILL');
        } catch {
          // Gone with its terminal.
        }
      }
      const again = attach('closing');
      await again.waitFor(PROMPT);
      again.write('echo after-close-$((6*6))\r');
      await again.waitFor('after-close-36');
    });

    it('writes a notice into the terminal itself', async () => {
      await newBash('note');
      const a = attach('note');
      await a.waitFor(PROMPT);
      const c = await daemon.connect();
      try {
        const { delivered } = await c.request('notice', { session: 'note', text: 'hello there' });
        expect(delivered).toBe(1);
      } finally {
        await c.close();
      }
      await a.waitFor('clippy: hello there');
      expect(a.screen()[29]).toContain('clippy: hello there');
    });

    it('refuses a terminal that is not the client’s, and an exited session, and the client relays', async () => {
      await newBash('mine');
      const other = attach('mine');
      await other.waitFor(PROMPT);
      const c = await daemon.connect();
      try {
        // This test process does not have that terminal as its stdin or stdout.
        const r = await c.request('attach', {
          session: 'mine',
          terminal: terminalOf(other.pid),
          pid: process.pid,
          detach_key: [Buffer.from([0x1d])],
        });
        expect(r.terminal).toBe(false);
        expect(r.terminal_refused).toMatch(/not the stdin or stdout of process/);
        expect(r.replay.length).toBeGreaterThan(0);
        const notPty = await c.request('attach', {
          session: 'mine',
          terminal: '/dev/null',
          pid: process.pid,
          detach_key: [Buffer.from([0x1d])],
        });
        expect(notPty.terminal_refused).toMatch(/not a pseudo-terminal/);
      } finally {
        await c.close();
      }

      await newSession('gone', 'sh', ['-c', 'echo GONE-SCREEN; exit 5']);
      await eventually(async () => {
        const c2 = await daemon.connect();
        try {
          const { sessions } = await c2.request('list_sessions', {});
          return sessions.some((s) => s.name === 'gone' && s.state === 'exited');
        } finally {
          await c2.close();
        }
      }, 'the session exited');
      const p = attach('gone');
      await p.waitFor('GONE-SCREEN');
      expect(await p.waitExit()).toBe(5);
    });
  },
);

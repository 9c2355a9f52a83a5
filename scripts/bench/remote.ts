/**
 * `npm run bench -- remote`: clippy on another machine through SSH (`clippy --host H attach`)
 * against plain `ssh -t H tmux attach` to the same box, in one run, both through a real sshd on
 * 127.0.0.1. Keystroke echo (one byte in, its echo out; p50/p99) and 64 MB printed by `cat` in
 * the session, timed from Enter to an end marker on the attached terminal. Asserts nothing.
 * Needs `npm run build` and sshd (apt-get install openssh-server); skips, saying so, without it.
 */
import { execFileSync } from 'node:child_process';
import { writeSync } from 'node:fs';
import path from 'node:path';
import pty from 'node-pty';
import { DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';
import { bins } from '@clippy/testkit/paths';
import { TestSshd, sshdUnavailable } from '@clippy/testkit/sshd';
import { MarkerWatcher, isMain, mb, percentile, tempDir, writeTextFile } from './_common.js';

/** Keystrokes per path (SSH adds a network hop: fewer than the local benchmark). */
const KEYSTROKES = 300;
/** Warm-up keystrokes not counted. */
const WARMUP = 30;
/** Bytes printed in the throughput run, as in the issue. */
const FLOOD_BYTES = 64 * 1024 * 1024;
/** Give up on one echo, or on the flood, after this long. */
const ECHO_TIMEOUT_MS = 5_000;
const FLOOD_TIMEOUT_MS = 120_000;
/** The echoing program: raw mode so each byte reaches cat at once, no tty echo. */
const ECHO_SCRIPT = 'stty raw -echo; echo READY; exec cat';
/** A private tmux server for the baseline. */
const TMUX_SOCKET = 'clippy-bench-remote';

function typeKey(p: pty.IPty, key: string): void {
  writeSync((p as unknown as { fd: number }).fd, key);
}

function waitText(p: pty.IPty, text: string, timeoutMs = 20_000): Promise<void> {
  return new Promise((resolve, reject) => {
    let seen = '';
    const timer = setTimeout(
      () => reject(new Error(`no '${text}' within ${timeoutMs} ms`)),
      timeoutMs,
    );
    const sub = p.onData((s) => {
      seen = (seen + s).slice(-4096);
      if (seen.includes(text)) {
        clearTimeout(timer);
        sub.dispose();
        resolve();
      }
    });
  });
}

async function echoSamples(p: pty.IPty): Promise<number[]> {
  let waiting: ((t: number) => void) | null = null;
  const sub = p.onData((s) => {
    if (waiting && s.includes('x')) {
      const w = waiting;
      waiting = null;
      w(performance.now());
    }
  });
  const samples: number[] = [];
  try {
    for (let i = 0; i < KEYSTROKES + WARMUP; i++) {
      const started = performance.now();
      const echoed = new Promise<number>((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('echo timed out')), ECHO_TIMEOUT_MS);
        waiting = (t) => {
          clearTimeout(timer);
          resolve(t);
        };
      });
      typeKey(p, 'x');
      const t = await echoed;
      if (i >= WARMUP) samples.push(t - started);
    }
  } finally {
    sub.dispose();
  }
  return samples.sort((a, b) => a - b);
}

/** Runs `cat FILE; echo MARKER` in the attached shell and returns MB/s seen on the terminal. */
async function flood(p: pty.IPty, file: string): Promise<number> {
  const marker = 'END-OF-FLOOD-7f3a';
  const watcher = new MarkerWatcher(Buffer.from(marker));
  const done = new Promise<number>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error('flood timed out')), FLOOD_TIMEOUT_MS);
    const sub = p.onData((s) => {
      if (watcher.feed(Buffer.from(s, 'utf8'))) {
        clearTimeout(timer);
        sub.dispose();
        resolve(performance.now());
      }
    });
  });
  const started = performance.now();
  // The marker is split in the command so its echo does not end the wait.
  typeKey(p, `cat ${file}; echo END-OF-''FLOOD-7f3a\r`);
  const ended = await done;
  return mb(FLOOD_BYTES) / ((ended - started) / 1000);
}

function sshArgs(sshd: TestSshd): string[] {
  return ['-F', path.join(sshd.dir, 'ssh_config'), '-tt', sshd.alias];
}

export async function run(): Promise<void> {
  const why = sshdUnavailable();
  if (why) {
    process.stdout.write(`skipped: ${why}\n`);
    return;
  }
  let tmuxOk = true;
  try {
    execFileSync('sh', ['-c', 'command -v tmux'], { stdio: 'ignore' });
  } catch {
    tmuxOk = false;
  }
  const tmp = tempDir();
  const file = path.join(tmp.dir, 'flood.txt');
  writeTextFile(file, FLOOD_BYTES);
  const remoteEnv = new DaemonEnv();
  const sshd = await TestSshd.start({
    XDG_RUNTIME_DIR: remoteEnv.runtimeDir,
    XDG_STATE_HOME: remoteEnv.env.XDG_STATE_HOME!,
    XDG_CONFIG_HOME: remoteEnv.env.XDG_CONFIG_HOME!,
  });
  const local = new DaemonEnv({
    CLIPPY_SSH_COMMAND: `ssh -F ${path.join(sshd.dir, 'ssh_config')}`,
  });
  const daemon = await TestDaemon.start({ env: remoteEnv });
  const ptys: pty.IPty[] = [];
  const open = (cmd: string, args: string[], env: NodeJS.ProcessEnv) => {
    const p = pty.spawn(cmd, args, { cols: 120, rows: 40, env: env as Record<string, string> });
    ptys.push(p);
    return p;
  };
  try {
    const c = await daemon.connect();
    await c.request('spawn', { name: 'echo', command: 'sh', args: ['-c', ECHO_SCRIPT] });
    await c.request('spawn', { name: 'flood', command: 'bash', args: ['--norc', '--noprofile'] });
    await c.close();
    if (tmuxOk) {
      execFileSync('tmux', [
        '-L',
        TMUX_SOCKET,
        '-f',
        '/dev/null',
        'new-session',
        '-d',
        '-s',
        'echo',
        '-x',
        '120',
        '-y',
        '40',
        `sh -c '${ECHO_SCRIPT}'`,
      ]);
      execFileSync('tmux', [
        '-L',
        TMUX_SOCKET,
        'new-session',
        '-d',
        '-s',
        'flood',
        '-x',
        '120',
        '-y',
        '40',
        'bash --norc --noprofile',
      ]);
    }
    const line = (name: string, s: number[]) =>
      `${name.padEnd(36)} p50 ${percentile(s, 50).toFixed(3)} ms   p99 ${percentile(s, 99).toFixed(3)} ms\n`;
    process.stdout.write(
      `${KEYSTROKES} keystrokes each; ${mb(FLOOD_BYTES)} MB by cat; both through sshd on 127.0.0.1\n`,
    );

    const clippyAttach = (session: string) =>
      open(process.execPath, [bins.clippy, '--host', sshd.alias, 'attach', session], local.env);
    const tmuxAttach = (session: string) =>
      open(
        'ssh',
        [...sshArgs(sshd), 'tmux', '-L', TMUX_SOCKET, 'attach', '-t', session],
        process.env,
      );

    const a = clippyAttach('echo');
    await waitText(a, 'READY');
    await new Promise((r) => setTimeout(r, 300));
    const clippyEcho = await echoSamples(a);
    process.stdout.write(line('clippy --host attach', clippyEcho));
    let tmuxEcho: number[] | null = null;
    if (tmuxOk) {
      const t = tmuxAttach('echo');
      await waitText(t, 'READY');
      await new Promise((r) => setTimeout(r, 300));
      tmuxEcho = await echoSamples(t);
      process.stdout.write(line('ssh -t HOST tmux attach', tmuxEcho));
      process.stdout.write(
        `ratio clippy/tmux: p50 ${(percentile(clippyEcho, 50) / percentile(tmuxEcho, 50)).toFixed(2)}x, p99 ${(percentile(clippyEcho, 99) / percentile(tmuxEcho, 99)).toFixed(2)}x\n`,
      );
    }

    const fa = clippyAttach('flood');
    await new Promise((r) => setTimeout(r, 1_000));
    const clippyRate = await flood(fa, file);
    process.stdout.write(`${'clippy --host attach'.padEnd(36)} ${clippyRate.toFixed(1)} MB/s\n`);
    if (tmuxOk) {
      const ft = tmuxAttach('flood');
      await new Promise((r) => setTimeout(r, 1_000));
      const tmuxRate = await flood(ft, file);
      process.stdout.write(`${'ssh -t HOST tmux attach'.padEnd(36)} ${tmuxRate.toFixed(1)} MB/s\n`);
      process.stdout.write(`ratio clippy/tmux: ${(clippyRate / tmuxRate).toFixed(2)}x\n`);
    } else process.stdout.write('tmux not installed: no baseline\n');
  } finally {
    for (const p of ptys) p.kill('SIGKILL');
    if (tmuxOk) {
      try {
        execFileSync('tmux', ['-L', TMUX_SOCKET, 'kill-server'], { stdio: 'ignore' });
      } catch {
        // already gone
      }
    }
    // The SSH master clippy left (it would linger for its idle time): ended by its PID.
    await sshd.stopMasters(local.runtimeDir);
    await daemon.stop();
    await local.dispose();
    await remoteEnv.dispose();
    await sshd.stop();
    tmp.remove();
  }
}

if (isMain(import.meta.url)) await run();

import { spawn, type ChildProcess } from 'node:child_process';
import { createInterface } from 'node:readline';
import { processRunning } from '../process/index.js';
import { ptyEnvironment, openPty, spawnPty, type OpenedPty } from './node-pty-process.js';
import type { PtyExit, PtyProcess, PtySpawnOptions } from './pty-process.js';

/**
 * Longest the spawner may take to start and answer (node's start-up on a loaded 2-core machine
 * is well under a second); past it, sessions are forked from the daemon as before.
 */
const SPAWNER_READY_MS = 10_000;

/**
 * Longest the spawner may stay silent while starts wait on it (a start is two forks of it,
 * stty's and setsid's, tens of ms on a loaded machine) before it is taken for hung: its starts
 * fail, and it is replaced. Silence, not a start's own wait: a burst of starts queues in the
 * spawner, and the last one's answer may come long after it was asked for while the spawner
 * answers all along.
 */
const SPAWN_ANSWER_MS = 10_000;

/**
 * How often a session started by a spawner that has since died is checked for its end: nothing
 * reports it any more (its parent is gone), so only a look at its PID can tell.
 */
const ORPHAN_PROBE_MS = 250;

/**
 * The terminal settings node-pty's own fork gives a new PTY beyond the kernel's defaults
 * (pty.cc: BRKINT, IXANY, IMAXBEL and HUPCL, VEOL and VEOL2 set to 0xff): a program sees the
 * same terminal however it was started.
 */
const NODE_PTY_TERMIOS = ['brkint', 'ixany', 'imaxbel', 'hupcl', 'eol', '0xff', 'eol2', '0xff'];

/**
 * The spawner: a small node process that starts every session's program for the daemon, on a
 * PTY the daemon opened. It reads one JSON request per line on stdin and answers on stdout.
 *
 * Why it exists: node-pty starts a program with forkpty(3), a fork of the whole daemon. A fork
 * write-protects every private page of the process, and the daemon then takes a page fault on
 * each page it writes afterwards: tens of thousands of them in the next flood of output
 * (measured by the first-flood bench: a session's first flood cost half again as much as its
 * second, and a fork just before a second flood cost as much again). Forking this process
 * instead costs the daemon nothing.
 *
 * How a program starts: the spawner opens the slave side by its path, sets node-pty's terminal
 * settings on it (stty), and runs `setsid -c PROGRAM ARGS` on it (`-c`: util-linux's `--ctty`,
 * busybox's too): a new session whose controlling terminal is the PTY, as forkpty makes it.
 * The child closes every descriptor but 0-2 on exec (this process holds no other without
 * close-on-exec: it closes those it inherited at start). It reports the program's PID once it
 * leads its session, then its exit status.
 *
 * Requests: {id, pts, file, args, cwd, env}. Answers: {ready: true} or {ready: false, why} once
 * at start; {id, pid, note?} or {id, error} per request; {id, exit: [code, signal]} when it
 * ends. It ends when its stdin closes (the daemon is gone), leaving what it started to the
 * daemon's reaper and to the terminal's hang-up.
 */
const SPAWNER_SCRIPT = `
'use strict';
process.title = 'clippyd-spawner';
const { spawn, spawnSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');
const [setsidName, sttyName, ...termios] = JSON.parse(process.argv[1]);
// Looks (1 ms apart) for setsid to have made the program a session leader: it takes well
// under a millisecond; past this many, the PID is told anyway.
const LEAD_TRIES = 1000;
const send = (m) => process.stdout.write(JSON.stringify(m) + '\\n');
for (const s of ['SIGHUP', 'SIGINT', 'SIGPIPE']) process.on(s, () => {});
// Descriptors inherited without close-on-exec (a shell's, a service manager's) would reach
// every program started here: close them now, as node-pty's fork does in its child.
for (const fd of fs.readdirSync('/proc/self/fd').map(Number)) {
  if (fd < 3) continue;
  try {
    const flags = /^flags:\\s*(\\d+)/m.exec(fs.readFileSync('/proc/self/fdinfo/' + fd, 'utf8'));
    if (flags && (parseInt(flags[1], 8) & 0o2000000) === 0) fs.closeSync(fd);
  } catch {}
}
const which = (name) => {
  // A name with a slash is a path, as the shell takes it.
  if (name.includes('/')) {
    try { fs.accessSync(name, fs.constants.X_OK); return name; } catch { return null; }
  }
  for (const dir of (process.env.PATH || '').split(':').concat(['/usr/bin', '/bin'])) {
    const file = path.join(dir || '.', name);
    try { fs.accessSync(file, fs.constants.X_OK); return file; } catch {}
  }
  return null;
};
const setsid = which(setsidName), stty = which(sttyName);
const help = setsid ? spawnSync(setsid, ['--help'], { encoding: 'utf8' }) : null;
if (!setsid || !stty)
  send({ ready: false, why: 'no ' + (setsid ? sttyName : setsidName) + ' on PATH' });
else if (!/ctty|controlling terminal/.test((help.stdout || '') + (help.stderr || '')))
  send({ ready: false, why: setsid + ' cannot set a controlling terminal (--ctty)' });
else send({ ready: true });
let buffered = '';
// Requests read and not yet started: one is started per turn of the loop, so that between two
// starts the checks below run and each PID is told as soon as it leads (a burst of requests
// read at once would otherwise be answered only when the last had started).
const queue = [];
const next = () => {
  const m = queue.shift();
  if (m) start(m);
  if (queue.length > 0) setImmediate(next);
};
process.stdin.setEncoding('utf8');
process.stdin.on('data', (data) => {
  buffered += data;
  const idle = queue.length === 0;
  let nl;
  while ((nl = buffered.indexOf('\\n')) >= 0) {
    const line = buffered.slice(0, nl);
    buffered = buffered.slice(nl + 1);
    if (line) queue.push(JSON.parse(line));
  }
  if (idle && queue.length > 0) setImmediate(next);
});
process.stdin.on('end', () => process.exit(0));
function start(m) {
  let fd = -1;
  try {
    fd = fs.openSync(m.pts, fs.constants.O_RDWR | fs.constants.O_NOCTTY);
    const set = spawnSync(stty, termios, { stdio: [fd, 'ignore', 'pipe'], encoding: 'utf8' });
    // Settings it cannot set leave the kernel's defaults: a note for the daemon's log, no failure.
    const note =
      set.status === 0 ? undefined : 'stty: ' + String(set.stderr || set.error || 'failed').trim();
    const child = spawn(setsid, ['-c', m.file, ...m.args], {
      stdio: [fd, fd, fd],
      cwd: m.cwd,
      env: m.env,
    });
    if (child.pid === undefined) {
      // libuv reports a chdir that failed in the child as the program's own ENOENT.
      child.on('error', (err) => {
        const error = fs.existsSync(m.cwd) ? err.message : 'no such directory: ' + m.cwd;
        send({ id: m.id, error });
      });
      return;
    }
    child.on('error', () => {});
    // The PID is told once setsid has made it a session leader with its controlling terminal:
    // from then on its group can be signalled (a kill right after the start must reach it).
    let told = false;
    const tell = () => {
      if (!told) send({ id: m.id, pid: child.pid, note });
      told = true;
    };
    let tries = 0;
    const leads = () => {
      if (told) return;
      let stat;
      try {
        stat = fs.readFileSync('/proc/' + child.pid + '/stat', 'utf8').split(') ')[1].split(' ');
      } catch {
        return tell();
      }
      if ((Number(stat[3]) === child.pid && Number(stat[4]) !== 0) || ++tries > LEAD_TRIES) tell();
      else setTimeout(leads, 1);
    };
    child.on('exit', (code, signal) => {
      tell();
      send({ id: m.id, exit: [code, signal] });
    });
    leads();
  } catch (err) {
    send({ id: m.id, error: err.message });
  } finally {
    if (fd >= 0) fs.closeSync(fd);
  }
}
`;

/** A start the spawner has been asked for: its PTY, and what waits for the answer. */
interface Pending {
  opened: OpenedPty;
  resolve: (pty: PtyProcess) => void;
  reject: (err: Error) => void;
  timer: NodeJS.Timeout;
}

/** One answer line of the spawner. */
interface Answer {
  ready?: boolean;
  why?: string;
  id?: number;
  pid?: number;
  error?: string;
  /** What went wrong without stopping the start (terminal settings that could not be set). */
  note?: string;
  exit?: [number | null, string | null];
}

/**
 * The daemon's side of the spawner (see SPAWNER_SCRIPT): starts it, asks it for each session's
 * program, and hands each program's end to its PTY. Where it is not needed (macOS: node-pty
 * starts programs with posix_spawn there) or cannot run (no setsid with -c, node-pty's internals
 * not as expected), node-pty starts them as before: on Linux a fork of the daemon, so slower
 * floods after each start, nothing else. One that died is started again by the next spawn.
 */
export class PtySpawner {
  private child: ChildProcess | null = null;
  private ready: Promise<boolean> | null = null;
  private nextId = 1;
  private readonly pending = new Map<number, Pending>();
  /** When the spawner last said anything (performance.now()): its silence is timed from here. */
  private heardAt = 0;
  /** Programs started and not yet ended: where each one's end goes. */
  private readonly running = new Map<number, { pid: number; exited: (exit: PtyExit) => void }>();
  private readonly orphanProbes = new Set<NodeJS.Timeout>();
  private disposed = false;
  /** A start's note was told already (once is enough: the next ones say the same). */
  private noted = false;
  /** Why the spawner is not used (null: it is, or has not been tried yet). */
  private unusable: string | null = null;

  /**
   * @param onProblem told when sessions cannot be started by the spawner (the daemon logs it)
   * @param tools the programs it runs, by name or path: `setsid` gives each program its session
   *   and terminal, `stty` its settings (tests name ones that are missing, fail or are slow)
   * @param answerMs how long it may stay silent while starts wait on it (tests shorten it)
   */
  constructor(
    private readonly onProblem: (message: string) => void = () => {},
    private readonly tools: { setsid?: string; stty?: string } = {},
    private readonly answerMs = SPAWN_ANSWER_MS,
  ) {}

  /** Starts the spawner process now, while this process is small (its own fork is cheap then). */
  start(): void {
    void this.whenReady();
  }

  /** Why sessions are forked from the daemon instead (null: the spawner starts them). */
  get notUsed(): string | null {
    return this.unusable;
  }

  /** The spawner's PID (tests, `ps`); null when it does not run. */
  get pid(): number | null {
    return this.child?.pid ?? null;
  }

  /** Starts `options.file` on a new PTY: through the spawner, else forked from this process. */
  async spawn(options: PtySpawnOptions): Promise<PtyProcess> {
    if (this.disposed || !(await this.whenReady())) return spawnPty(options);
    const child = this.child;
    if (!child) return spawnPty(options);
    const opened = openPty(options);
    if (!opened) {
      this.giveUp("node-pty's native module is not as expected");
      return spawnPty(options);
    }
    const id = this.nextId++;
    try {
      return await new Promise<PtyProcess>((resolve, reject) => {
        const timer = this.watch(id, performance.now(), this.answerMs);
        this.pending.set(id, { opened, resolve, reject, timer });
        child.stdin!.write(
          `${JSON.stringify({
            id,
            pts: opened.ptsName,
            file: options.file,
            args: options.args,
            cwd: options.cwd,
            env: ptyEnvironment(options),
          })}\n`,
        );
      });
    } catch (err) {
      opened.close();
      throw err;
    }
  }

  /** Looks at start `id`, asked for at `asked`, in `ms`: see overdue. */
  private watch(id: number, asked: number, ms: number): NodeJS.Timeout {
    // The look waits for the loop's poll: after a long busy stretch of this process the timer
    // is due before the spawner's answers already in the pipe are read, and they count.
    return setTimeout(() => setImmediate(() => this.overdue(id, asked)), ms);
  }

  /**
   * Start `id` is still unanswered: if the spawner has said anything since the silence bound
   * began, it is working through a queue, and the start waits on; else it is taken for hung.
   */
  private overdue(id: number, asked: number): void {
    const pending = this.pending.get(id);
    if (!pending) return;
    const silent = performance.now() - Math.max(this.heardAt, asked);
    if (silent < this.answerMs) {
      pending.timer = this.watch(id, asked, this.answerMs - silent);
      return;
    }
    const why = `the spawner answered nothing in ${this.answerMs} ms`;
    this.onProblem(`${why}: it is stopped, and the next session starts a new one`);
    for (const [waiting, p] of this.pending) {
      clearTimeout(p.timer);
      this.pending.delete(waiting);
      p.reject(new Error(why));
    }
    const child = this.child;
    if (!child) return;
    // Its end (gone) watches what it started by PID; starts asked for until then wait for it
    // and go to a new spawner.
    this.ready = new Promise((resolve) =>
      child.once('exit', () => resolve(!this.disposed && this.whenReady())),
    );
    child.kill('SIGKILL');
  }

  private whenReady(): Promise<boolean> {
    this.ready ??= this.launch();
    return this.ready;
  }

  private launch(): Promise<boolean> {
    if (process.platform !== 'linux') {
      // node-pty starts programs with posix_spawn elsewhere: no fork of the daemon to avoid.
      this.unusable = `not needed on ${process.platform}`;
      return Promise.resolve(false);
    }
    let child: ChildProcess;
    try {
      child = spawn(
        process.execPath,
        [
          '-e',
          SPAWNER_SCRIPT,
          JSON.stringify([
            this.tools.setsid ?? 'setsid',
            this.tools.stty ?? 'stty',
            ...NODE_PTY_TERMIOS,
          ]),
        ],
        {
          // Its own session: a terminal's Ctrl-C or hang-up that reaches a foreground daemon
          // does not end it (it ends when the daemon's pipe closes).
          detached: true,
          stdio: ['pipe', 'pipe', 'ignore'],
          // The daemon's PATH (setsid and stty are looked up there): nothing else of its
          // environment, which every program gets from its request.
          env: { PATH: process.env.PATH ?? '/usr/bin:/bin' },
        },
      );
    } catch (err) {
      this.giveUp(`the spawner did not start: ${(err as Error).message}`);
      return Promise.resolve(false);
    }
    this.child = child;
    child.unref();
    (child.stdin as unknown as { unref?: () => void }).unref?.();
    (child.stdout as unknown as { unref?: () => void }).unref?.();
    child.stdin!.on('error', () => {});
    return new Promise<boolean>((resolve) => {
      const timer = setTimeout(() => {
        this.giveUp(`the spawner did not answer in ${SPAWNER_READY_MS} ms`);
        resolve(false);
      }, SPAWNER_READY_MS);
      let started = false;
      const lines = createInterface({ input: child.stdout! });
      lines.on('line', (line) => {
        this.heardAt = performance.now();
        let answer: Answer;
        try {
          answer = JSON.parse(line) as Answer;
        } catch {
          return;
        }
        if (answer.ready !== undefined) {
          started = true;
          clearTimeout(timer);
          if (!answer.ready) this.giveUp(answer.why ?? 'the spawner cannot start programs');
          resolve(answer.ready && !this.disposed);
          return;
        }
        this.answered(answer);
      });
      child.on('error', (err) => {
        clearTimeout(timer);
        this.giveUp(`the spawner failed: ${err.message}`);
        resolve(false);
      });
      child.on('exit', (code, signal) => {
        clearTimeout(timer);
        // One that cannot even start would only fail again: not tried again.
        if (!started) this.giveUp(`the spawner ended as it started (${signal ?? code})`);
        this.gone();
        resolve(false);
      });
    });
  }

  private answered(answer: Answer): void {
    if (answer.id === undefined) return;
    const pending = this.pending.get(answer.id);
    if (pending) {
      this.pending.delete(answer.id);
      clearTimeout(pending.timer);
      if (answer.pid === undefined) {
        pending.reject(new Error(answer.error ?? 'the spawner could not start it'));
        return;
      }
      if (answer.note && !this.noted) {
        this.noted = true;
        this.onProblem(`a session's terminal settings are the kernel's: ${answer.note}`);
      }
      try {
        const started = pending.opened.adopt(answer.pid);
        this.running.set(answer.id, { pid: answer.pid, exited: started.exited });
        pending.resolve(started.pty);
      } catch (err) {
        pending.reject(err as Error);
      }
      return;
    }
    if (answer.exit) {
      const running = this.running.get(answer.id);
      if (!running) return;
      this.running.delete(answer.id);
      const [exitCode, signal] = answer.exit;
      running.exited(signal ? { exitCode: null, signal } : { exitCode, signal: null });
    }
  }

  /**
   * The spawner died (killed, or the daemon stops): starts waiting on it fail; the programs it
   * started run on, and nothing reports their ends, so each is watched by its PID until gone.
   */
  private gone(): void {
    this.child = null;
    // The next spawn starts a new one, unless it was found unusable.
    if (this.unusable === null) this.ready = null;
    for (const [id, p] of this.pending) {
      clearTimeout(p.timer);
      p.reject(new Error('the spawner ended before it answered'));
      this.pending.delete(id);
    }
    if (this.disposed) return;
    if (this.running.size > 0)
      this.onProblem('the spawner ended: the ends of the sessions it started are watched by PID');
    for (const [id, r] of this.running) {
      this.running.delete(id);
      const probe = setInterval(() => {
        if (processRunning(r.pid)) return;
        clearInterval(probe);
        this.orphanProbes.delete(probe);
        r.exited({ exitCode: null, signal: null });
      }, ORPHAN_PROBE_MS);
      probe.unref();
      this.orphanProbes.add(probe);
    }
  }

  private giveUp(why: string): void {
    if (this.unusable === null) this.onProblem(`sessions are forked from the daemon: ${why}`);
    this.unusable = why;
    this.ready = Promise.resolve(false);
    this.child?.stdin?.end();
  }

  /** Ends the spawner (the daemon stops; its sessions have ended). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    for (const probe of this.orphanProbes) clearInterval(probe);
    this.orphanProbes.clear();
    this.child?.stdin?.end();
  }
}

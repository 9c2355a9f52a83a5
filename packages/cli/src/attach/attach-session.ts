import os from 'node:os';
import type { ClippyClient } from '@clippy/client';
import { ACK_INTERVAL_BYTES, type Push } from '@clippy/protocol';
import { EXIT } from '../exit-codes.js';
import { findDetachKey, type DetachKey } from './detach-key.js';
import { TerminalGuard } from './terminal.js';

/** How long the end of an attach waits for the terminal to take pending output. */
export const EXIT_FLUSH_TIMEOUT_MS = 2_000;
/** How long a detach waits for the broker's answer before leaving anyway. */
export const DETACH_TIMEOUT_MS = 1_000;

/** Hides nothing the program chose to hide: only re-shows the cursor if the replay did not hide it on purpose. */
function cursorFix(replay: Buffer): string {
  const hide = replay.lastIndexOf('\x1b[?25l');
  const show = replay.lastIndexOf('\x1b[?25h');
  return hide > show ? '' : '\x1b[?25h';
}

/** The exit status a shell would report: the code, or 128 + the signal number. */
export function exitStatus(
  code: number | null | undefined,
  signal: string | null | undefined,
): number {
  if (typeof code === 'number') return code;
  if (signal) {
    const n = (os.constants.signals as Record<string, number>)[signal];
    if (n) return 128 + n;
  }
  return EXIT.failure;
}

export interface AttachOptions {
  session: string;
  observer?: boolean;
  detachKey: DetachKey;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  /** Where errors go (the detach notice goes to stdout, like tmux's). */
  stderr?: NodeJS.WritableStream;
}

/** How an attach ends, beside its exit code. */
interface Ending {
  /** Printed once the terminal is restored. */
  message?: string;
  /** Wait for the terminal to take pending output first (not when it is gone). */
  flush?: boolean;
  /** The message goes to stderr (an error), not stdout (the detach notice). */
  isError?: boolean;
  /** The session itself ended: leave the cursor where its last output put it. */
  sessionEnded?: boolean;
}
/**
 * Attaches the current terminal to a session until it exits (resolves with its exit status),
 * the user detaches (0), or the daemon goes away (EXIT.noBroker). The terminal is restored on
 * every path.
 */
export async function runAttach(client: ClippyClient, opts: AttachOptions): Promise<number> {
  const stdin = opts.stdin ?? process.stdin;
  const stdout = opts.stdout ?? process.stdout;
  const stderr = opts.stderr ?? process.stderr;
  const term = new TerminalGuard(stdin, stdout);
  const interactive = !opts.observer;
  let sessionRefs = new Set([opts.session]);
  let name = opts.session;
  let sessionId = opts.session;
  let replayed = false;
  const early: Push[] = [];
  let unacked = 0;
  let ending = false;
  let resolveDone!: (code: number) => void;
  const done = new Promise<number>((r) => (resolveDone = r));
  const cleanups: Array<() => void> = [];

  const mine = (p: { session: string }) => sessionRefs.has(p.session);

  const writeOut = (data: Uint8Array) => {
    term.modes.feed(data);
    const len = data.length;
    stdout.write(data, () => {
      if (!interactive || ending) return;
      unacked += len;
      if (unacked >= ACK_INTERVAL_BYTES) {
        client.notify('ack', { session: sessionId, bytes: unacked });
        unacked = 0;
      }
    });
  };

  const flushStdout = () =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, EXIT_FLUSH_TIMEOUT_MS);
      stdout.write('', () => {
        clearTimeout(timer);
        resolve();
      });
    });

  const end = async (
    code: number,
    { message, flush = true, isError = false, sessionEnded = false }: Ending = {},
  ) => {
    if (ending) return;
    ending = true;
    for (const c of cleanups.splice(0)) c();
    stdin.pause();
    if (flush) await flushStdout();
    term.restore({ leaveScreen: !sessionEnded });
    if (message) (isError ? stderr : stdout).write(`${message}\n`);
    await client.close();
    resolveDone(code);
  };

  const handlePush = (p: Push) => {
    if (ending) return;
    switch (p.type) {
      case 'output':
        if (mine(p)) writeOut(p.data);
        break;
      case 'exit':
        if (mine(p)) void end(exitStatus(p.exit_code, p.signal), { sessionEnded: true });
        break;
      case 'detached':
        if (mine(p)) {
          const code = p.reason === 'daemon_shutdown' ? EXIT.noBroker : EXIT.failure;
          void end(code, { message: `[detached from ${name}: ${p.message}]`, isError: true });
        }
        break;
      default:
        break;
    }
  };

  cleanups.push(
    client.onAny((p) => {
      if (!replayed) early.push(p);
      else handlePush(p);
    }),
  );
  void client.closed.then((info) => {
    if (info.reason !== 'client')
      void end(EXIT.noBroker, { message: `clippy: ${info.message}`, flush: false, isError: true });
  });

  let result;
  try {
    result = await client.request('attach', {
      session: opts.session,
      mode: interactive ? 'interactive' : 'observer',
      ...term.size(),
    });
  } catch (err) {
    // The daemon died while we asked: that ending (exit 69, message) is already under way.
    if (ending) return done;
    for (const c of cleanups.splice(0)) c();
    throw err;
  }
  sessionId = result.session;
  name = result.name;
  sessionRefs = new Set([opts.session, result.session, result.name]);

  term.enterRaw();
  const replay = Buffer.from(result.replay);
  if (stdout.isTTY) stdout.write('\x1b[H\x1b[2J');
  term.modes.feed(replay);
  stdout.write(replay);
  if (stdout.isTTY) stdout.write(cursorFix(replay));
  replayed = true;
  for (const p of early.splice(0)) handlePush(p);

  if (result.exited) {
    void end(exitStatus(result.exit_code, result.exit_signal), { sessionEnded: true });
    return done;
  }

  const onInput = (chunk: Buffer) => {
    if (ending) return;
    let data = chunk;
    let detach = false;
    const hit = findDetachKey(chunk, opts.detachKey);
    if (hit) {
      data = chunk.subarray(0, hit.index);
      detach = true;
    }
    // Observers only watch: their keystrokes (but the detach key) go nowhere.
    // A notification, not a request: a response per keystroke would wake this process (and
    // the daemon) once more per key, next to the echo it waits for. Nothing is lost without
    // it: a session that is gone says so with its `exit` push, which ends the attach.
    if (data.length > 0 && interactive) {
      client.notify('input', { session: sessionId, data: Buffer.from(data) });
    }
    if (detach) {
      void (async () => {
        await client
          .request('detach', { session: sessionId }, { timeoutMs: DETACH_TIMEOUT_MS })
          .catch(() => {});
        await end(EXIT.ok, { message: `[detached from ${name}]` });
      })();
    }
  };
  stdin.on('data', onInput);
  stdin.resume();
  cleanups.push(() => stdin.off('data', onInput));

  const onResize = () => {
    if (interactive)
      client.request('resize', { session: sessionId, ...term.size() }).catch(() => {});
  };
  stdout.on('resize', onResize);
  cleanups.push(() => stdout.off('resize', onResize));

  for (const sig of ['SIGTERM', 'SIGHUP', 'SIGINT'] as const) {
    const handler = () => void end(128 + os.constants.signals[sig], { flush: sig !== 'SIGHUP' });
    process.on(sig, handler);
    cleanups.push(() => process.off(sig, handler));
  }
  // A terminal that vanished (SIGHUP, closed pty) fails writes with EIO: end instead of crashing.
  const onStdoutError = () => void end(EXIT.failure, { flush: false });
  stdout.on('error', onStdoutError);
  cleanups.push(() => stdout.off('error', onStdoutError));

  return done;
}

import type { ClippyClient } from '@clippy/client';
import {
  BrokerError,
  FOCUS_REPORTS_ON,
  detachKeyEncodings,
  noticeLineBytes,
  type DetachKey,
  type Result,
} from '@clippy/protocol';
import {
  brokerDetached,
  connectionLost,
  sessionExited,
  userDetached,
  type Ending,
} from './ending.js';
import { EndingTriggers } from './ending-triggers.js';
import { InputForwarder } from './input-forwarder.js';
import { flushOutput, OutputWriter } from './output-writer.js';
import { ResizeForwarder } from './resize-forwarder.js';
import { SessionPushes, type SessionPush } from './session-pushes.js';
import { TerminalGuard, directTerminalPath } from './terminal.js';

/** How long a detach waits for the broker's answer before leaving anyway. */
export const DETACH_TIMEOUT_MS = 1_000;
/**
 * How long a detach waits in direct mode: the daemon first writes the restore into the terminal
 * and waits for it to take it (up to its own, shorter bound).
 */
export const DIRECT_DETACH_TIMEOUT_MS = 3_000;

export interface AttachOptions {
  session: string;
  observer?: boolean;
  detachKey: DetachKey;
  /**
   * Offer the daemon this terminal to read and write itself (direct attach, as tmux's server
   * does): only for a daemon on this machine. Relay mode (every byte through this process)
   * when false, when stdin and stdout are not one terminal, or when the daemon declines.
   */
  direct?: boolean;
  stdin?: NodeJS.ReadStream;
  stdout?: NodeJS.WriteStream;
  /** Where errors go (the detach notice goes to stdout, like tmux's). */
  stderr?: NodeJS.WritableStream;
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
  let name = opts.session;
  const output = new OutputWriter({ stdout, client, modes: term.modes, interactive });
  let ending = false;
  /** The daemon reads and writes the terminal itself: this process only waits. */
  let direct = false;
  let resolveDone!: (code: number) => void;
  const done = new Promise<number>((r) => (resolveDone = r));
  const owned: Array<{ dispose(): void }> = [];

  const end = async (how: Ending) => {
    if (ending) return;
    ending = true;
    output.stop();
    for (const o of owned.splice(0)) o.dispose();
    stdin.pause();
    if (how.flush) await flushOutput(stdout);
    if (!direct) term.restore({ leaveScreen: !how.sessionEnded });
    else if (how.daemonRestored) term.restore({ leaveScreen: false, modesUnknown: false });
    else term.restore({ modesUnknown: true });
    if (how.message) (how.isError ? stderr : stdout).write(`${how.message}\n`);
    await client.close();
    resolveDone(how.code);
  };

  const onPush = (p: SessionPush) => {
    if (ending) return;
    if (p.type === 'output') output.write(p.data);
    else if (p.type === 'notice') {
      // Direct: the daemon writes notices into the terminal itself (no push comes).
      if (stdout.isTTY) stdout.write(noticeLineBytes(p.text, term.size().cols, term.size().rows));
    } else if (p.type === 'exit') void end(sessionExited(p.exit_code, p.signal));
    else void end(brokerDetached(name, p.reason, p.message));
  };
  const pushes = new SessionPushes(client, onPush);
  owned.push(pushes);
  void client.closed.then((info) => {
    if (info.reason !== 'client') void end(connectionLost(info.message));
  });

  const terminal = opts.direct ? directTerminalPath(stdin, stdout) : null;
  // Direct: raw mode (and no output processing) before the request, because the daemon paints
  // the replay into the terminal before it answers.
  if (terminal) term.enterRaw();
  let result: Result<'attach'>;
  try {
    const request = {
      session: opts.session,
      mode: interactive ? ('interactive' as const) : ('observer' as const),
      ...term.size(),
      pid: process.pid,
    };
    try {
      result = await client.request('attach', {
        ...request,
        ...(terminal
          ? { terminal, detach_key: detachKeyEncodings(opts.detachKey) as Uint8Array[] }
          : {}),
      });
    } catch (err) {
      // A daemon from before direct attach refuses the unknown fields: relay, as it knows how.
      if (!terminal || !(err instanceof BrokerError) || err.code !== 'invalid_message') throw err;
      result = await client.request('attach', request);
    }
  } catch (err) {
    // The daemon died while we asked: that ending (exit 69, message) is already under way.
    if (ending) return done;
    for (const o of owned.splice(0)) o.dispose();
    if (terminal) term.restore({ leaveScreen: false });
    throw err;
  }
  const session = result.session;
  name = result.name;
  direct = result.terminal === true;
  // From here on an unexpected failure of this process restores every mode blindly.
  term.outputBypassed = direct;

  if (!direct) {
    term.enterRaw();
    output.start(session, Buffer.from(result.replay));
  }
  // Focus reports tell the daemon which session the user looks at (`clippy focused`); the
  // terminal's restore turns them off again. A program that turns them off is overruled.
  // Direct: the daemon turns them on and reads them.
  const focusReports = !direct && stdout.isTTY && !result.exited;
  if (focusReports) {
    stdout.write(FOCUS_REPORTS_ON);
    // The tracker sees output before it is written: turn them on again right after it.
    term.modes.onFocusReportsOff = () =>
      queueMicrotask(() => {
        if (!ending) stdout.write(FOCUS_REPORTS_ON);
      });
  }
  pushes.open([opts.session, session, name]);

  if (result.exited) {
    void end(sessionExited(result.exit_code, result.exit_signal));
    return done;
  }

  const detach = async (how: Ending) => {
    const timeoutMs = direct ? DIRECT_DETACH_TIMEOUT_MS : DETACH_TIMEOUT_MS;
    // Direct: the answer comes once the daemon gave the terminal back.
    const answered = await client.request('detach', { session }, { timeoutMs }).then(
      () => true,
      () => false,
    );
    await end({ ...how, daemonRestored: answered });
  };
  if (direct) {
    // Nothing is read or written here while the daemon owns the terminal: a signal (the user's
    // SIGTERM, the terminal's SIGHUP) asks the daemon to give it back first.
    owned.push(new EndingTriggers(stdout, (how) => void detach(how)));
  } else {
    owned.push(
      new InputForwarder({
        stdin,
        client,
        session,
        detachKey: opts.detachKey,
        interactive,
        onDetach: () => void detach(userDetached(name)),
        ...(focusReports
          ? {
              onFocus: (focused: boolean) => client.notify('focus', { session, focused }),
              programWantsFocus: () => term.modes.isOn(1004),
            }
          : {}),
      }),
      new EndingTriggers(stdout, (how) => void end(how)),
    );
  }
  owned.push(new ResizeForwarder(stdout, client, session, interactive));
  return done;
}

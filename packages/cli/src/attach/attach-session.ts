import type { ClippyClient } from '@clippy/client';
import type { DetachKey } from './detach-key.js';
import {
  brokerDetached,
  connectionLost,
  sessionExited,
  userDetached,
  type Ending,
} from './ending.js';
import { EndingTriggers } from './ending-triggers.js';
import { InputForwarder } from './input-forwarder.js';
import { FOCUS_REPORTS_ON } from './focus-reports.js';
import { noticeLineBytes } from './notice-line.js';
import { flushOutput, OutputWriter } from './output-writer.js';
import { ResizeForwarder } from './resize-forwarder.js';
import { SessionPushes, type SessionPush } from './session-pushes.js';
import { TerminalGuard } from './terminal.js';

/** How long a detach waits for the broker's answer before leaving anyway. */
export const DETACH_TIMEOUT_MS = 1_000;

export interface AttachOptions {
  session: string;
  observer?: boolean;
  detachKey: DetachKey;
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
    term.restore({ leaveScreen: !how.sessionEnded });
    if (how.message) (how.isError ? stderr : stdout).write(`${how.message}\n`);
    await client.close();
    resolveDone(how.code);
  };

  const onPush = (p: SessionPush) => {
    if (ending) return;
    if (p.type === 'output') output.write(p.data);
    else if (p.type === 'notice') {
      if (stdout.isTTY) stdout.write(noticeLineBytes(p.text, term.size().cols, term.size().rows));
    } else if (p.type === 'exit') void end(sessionExited(p.exit_code, p.signal));
    else void end(brokerDetached(name, p.reason, p.message));
  };
  const pushes = new SessionPushes(client, onPush);
  owned.push(pushes);
  void client.closed.then((info) => {
    if (info.reason !== 'client') void end(connectionLost(info.message));
  });

  let result;
  try {
    result = await client.request('attach', {
      session: opts.session,
      mode: interactive ? 'interactive' : 'observer',
      ...term.size(),
      pid: process.pid,
    });
  } catch (err) {
    // The daemon died while we asked: that ending (exit 69, message) is already under way.
    if (ending) return done;
    for (const o of owned.splice(0)) o.dispose();
    throw err;
  }
  const session = result.session;
  name = result.name;

  term.enterRaw();
  output.start(session, Buffer.from(result.replay));
  // Focus reports tell the daemon which session the user looks at (`clippy focused`); the
  // terminal's restore turns them off again. A program that turns them off is overruled.
  const focusReports = stdout.isTTY && !result.exited;
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

  const detach = async () => {
    await client.request('detach', { session }, { timeoutMs: DETACH_TIMEOUT_MS }).catch(() => {});
    await end(userDetached(name));
  };
  owned.push(
    new InputForwarder({
      stdin,
      client,
      session,
      detachKey: opts.detachKey,
      interactive,
      onDetach: () => void detach(),
      ...(focusReports
        ? {
            onFocus: (focused: boolean) => client.notify('focus', { session, focused }),
            programWantsFocus: () => term.modes.isOn(1004),
          }
        : {}),
    }),
    new ResizeForwarder(stdout, client, session, interactive),
    new EndingTriggers(stdout, (how) => void end(how)),
  );
  return done;
}

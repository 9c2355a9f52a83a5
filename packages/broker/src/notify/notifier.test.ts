import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import type { Menu } from '@clippy/protocol';
import { FocusState } from '../focus/focus-state.js';
import { silentLogger } from '../log.js';
import type { Session } from '../sessions/session.js';
import { BLOCKED_AFTER_ANSWER_MS, Notifier } from './notifier.js';

/** The part of a session the notifier reads for a `blocked` event. */
interface FakeSession {
  id: string;
  name: string;
  preset: string;
  kind: string;
  state: string;
  menu: Pick<Menu, 'question' | 'detail' | 'options' | 'style'> | null;
  turnCount: number;
  inputBytes: number;
  clientCount: number;
}

const dirs: string[] = [];
afterEach(() => {
  vi.useRealTimers();
  for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
});

/** A notifier with default settings, no desktop, and the list of events it decided to tell. */
function notifier(): { n: Notifier; told: string[] } {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-notifier-'));
  dirs.push(dir);
  const told: string[] = [];
  const log = silentLogger();
  const info = log.info.bind(log);
  log.info = ((obj: unknown, msg?: string) => {
    if (msg === 'notified') told.push((obj as { event: string }).event);
    return info(obj as object, msg);
  }) as typeof log.info;
  const n = new Notifier({
    env: { XDG_CONFIG_HOME: dir, XDG_RUNTIME_DIR: dir },
    log,
    focus: new FocusState(),
    attachedClients: () => new Map(),
  });
  return { n, told };
}

const dialog = (question: string, detail: string[] = []): FakeSession['menu'] => ({
  question,
  detail,
  style: 'numbered',
  options: [{ label: 'Yes', keys: ['Enter'] }] as Menu['options'],
});

function session(): FakeSession {
  return {
    id: 's1',
    name: 'qwen',
    preset: 'qwen',
    kind: 'agent',
    state: 'busy',
    menu: null,
    turnCount: 3,
    inputBytes: 40,
    clientCount: 0,
  };
}

/** The session blocked on `question` for `lasts` ms (fake clock), then busy again. */
function blocked(
  n: Notifier,
  s: FakeSession,
  question: string | FakeSession['menu'],
  lasts = 0,
): void {
  s.state = 'blocked';
  s.menu = typeof question === 'string' ? dialog(question) : question;
  n.stateChanged(s as unknown as Session);
  vi.advanceTimersByTime(lasts);
  s.state = 'busy';
  n.stateChanged(s as unknown as Session);
}

describe('a session that waits for its user is told once per question asked', () => {
  it('a dialog read half-drawn, then whole, with no answer between: one event', () => {
    vi.useFakeTimers();
    const { n, told } = notifier();
    const s = session();
    blocked(n, s, 'Allow execution of');
    blocked(n, s, 'Allow execution of: touch approved.txt?');
    expect(told).toEqual(['blocked']);
    n.dispose();
  });

  it('the whole dialog drawn again as it closes after the answer: still the one told', () => {
    vi.useFakeTimers();
    // Qwen Code: told on its half-drawn dialog, then the whole one, answered with Enter, and the
    // whole one read once more while it closes.
    const { n, told } = notifier();
    const s = session();
    blocked(n, s, '? Shell touch approved.txt (Run a command) ←');
    blocked(n, s, "Allow execution of: 'touch'?");
    s.inputBytes += 1; // the user's Enter
    blocked(n, s, "Allow execution of: 'touch'?", BLOCKED_AFTER_ANSWER_MS);
    expect(told).toEqual(['blocked']);
    n.dispose();
  });

  it('part of the dialog read for a moment as it closes after the answer: not told', () => {
    // Qwen Code: told "Allow execution of…", answered; its tool line read as a question for a
    // moment while the dialog went away.
    vi.useFakeTimers();
    const { n, told } = notifier();
    const s = session();
    blocked(n, s, "Allow execution of: 'touch'?");
    s.inputBytes += 1; // the user's Enter
    blocked(n, s, '? Shell touch approved.txt (Run a command) ←', BLOCKED_AFTER_ANSWER_MS - 100);
    vi.advanceTimersByTime(BLOCKED_AFTER_ANSWER_MS);
    expect(told).toEqual(['blocked']);
    n.dispose();
  });

  it('answered while read half-drawn, then drawn whole for long as it closes: not told again', () => {
    // Qwen Code under load (the full suite on 2 cores): its tool line read as the question
    // before the question line was drawn, told; the user's Enter; the whole dialog then stayed
    // on screen for seconds while the agent went on.
    vi.useFakeTimers();
    const { n, told } = notifier();
    const s = session();
    const tool = '? Shell touch approved.txt (Run a command) ←';
    blocked(n, s, dialog(tool, ['touch approved.txt']));
    s.inputBytes += 1; // the user's Enter
    const whole = dialog("Allow execution of: 'touch'?", [tool, 'touch approved.txt']);
    blocked(n, s, whole, BLOCKED_AFTER_ANSWER_MS * 10);
    expect(told).toEqual(['blocked']);
    // The next command's dialog in the same turn is a new question.
    s.inputBytes += 1;
    const next = '? Shell rm approved.txt (Run a command) ←';
    blocked(
      n,
      s,
      dialog("Allow execution of: 'rm'?", [next, 'rm approved.txt']),
      BLOCKED_AFTER_ANSWER_MS,
    );
    expect(told).toEqual(['blocked', 'blocked']);
    n.dispose();
  });

  it('a second question after the user answered the first, in the same turn: told again', () => {
    vi.useFakeTimers();
    const { n, told } = notifier();
    const s = session();
    blocked(n, s, 'Allow execution of: touch a.txt?');
    s.inputBytes += 1; // the user's Enter
    blocked(n, s, 'Allow execution of: touch b.txt?', BLOCKED_AFTER_ANSWER_MS);
    expect(told).toEqual(['blocked', 'blocked']);
    n.dispose();
  });

  it('the next turn’s question is told even when nobody typed since', () => {
    vi.useFakeTimers();
    const { n, told } = notifier();
    const s = session();
    blocked(n, s, 'Allow execution of: touch a.txt?');
    s.turnCount += 1;
    blocked(n, s, 'Allow execution of: touch b.txt?');
    expect(told).toEqual(['blocked', 'blocked']);
    n.dispose();
  });
});

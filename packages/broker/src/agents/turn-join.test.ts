import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join as joinPath } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AgentTurn } from '@clippy/protocol';
import { TurnJoin, samePrompt, type JoinedTurn, type ScreenTurn } from './turn-join.js';
import type { AgentChannel, ChannelTurn, ScreenTurnInfo } from './types.js';

const WAIT = 1_000;

function channel(over: Partial<AgentChannel> = {}): AgentChannel {
  return {
    agent: 'claude',
    agentSession: 'S',
    onEvent: () => Promise.resolve({ kind: 'ignored', why: 'test' }),
    expectsReport: (t: ScreenTurnInfo) => !t.interrupted,
    dispose: () => {},
    ...over,
  };
}

function report(
  answer: string | null,
  prompt?: string,
  extra: Partial<AgentTurn> = {},
): ChannelTurn {
  return {
    answer,
    ...(prompt !== undefined ? { prompt } : {}),
    record: { agent: 'claude', via: 'claude-transcript', turn_id: 'T1', ...extra },
  };
}

function screen(
  prompt: string,
  startedAt: number,
  endedAt: number,
  interrupted = false,
): ScreenTurn {
  return { prompt, startedAt, endedAt, interrupted, text: 'screen text' };
}

let now = 0;
let stored: JoinedTurn[];
let warnings: string[];
let idle: boolean;
let amended: string[];

/** A join storing into `stored`; on the test's clock unless given another (`Date.now`). */
function join(ch = channel(), waitMs = WAIT, clock: () => number = () => now) {
  return new TurnJoin(
    ch,
    {
      store: (t) => stored.push(t),
      warn: (m) => warnings.push(m),
      debug: () => {},
      screenIdle: () => idle,
      amend: (note) => amended.push(note),
    },
    waitMs,
    clock,
  );
}

beforeEach(() => {
  vi.useFakeTimers();
  now = 10_000;
  stored = [];
  warnings = [];
  amended = [];
  idle = false;
});
afterEach(() => vi.useRealTimers());

describe('TurnJoin', () => {
  it('a report that came while the screen turn was open joins it at once: the agent’s answer and record', () => {
    const j = join();
    j.channelTurn(report('# Answer', 'hi'));
    j.screenTurn(screen('hi', 9_000, 10_500));
    expect(stored).toHaveLength(1);
    expect(stored[0]!.answer).toBe('# Answer');
    expect(stored[0]!.agent?.turn_id).toBe('T1');
    expect(stored[0]!.disagreement).toBeUndefined();
    expect(j.state).toBe('live');
    expect(warnings).toEqual([]);
  });

  it('a screen turn completed first waits for its report, then is stored joined', () => {
    const j = join();
    j.screenTurn(screen('hi', 9_000, 10_000));
    expect(stored).toHaveLength(0);
    now = 10_300;
    j.channelTurn(report('answer', 'hi'));
    expect(stored).toHaveLength(1);
    expect(stored[0]!.answer).toBe('answer');
  });

  it('turns completed while one waits are stored after it, in order', () => {
    const j = join();
    j.screenTurn(screen('one', 9_000, 10_000));
    j.screenTurn(screen('two', 10_100, 10_200, true));
    j.channelTurn(report('first', 'one'));
    expect(stored.map((t) => t.prompt)).toEqual(['one', 'two']);
    expect(stored[1]!.answer).toBeUndefined();
  });

  it('an interrupted turn is stored from the screen at once (hooks miss interrupts)', () => {
    const j = join();
    j.screenTurn(screen('hi', 9_000, 10_000, true));
    expect(stored).toHaveLength(1);
    expect(stored[0]!.answer).toBeUndefined();
  });

  it('a turn whose report is not expected is not held', () => {
    const j = join(channel({ expectsReport: () => false }));
    j.screenTurn(screen('/help', 9_000, 10_000));
    expect(stored).toHaveLength(1);
  });

  it('a channel that never reports goes silent after one wait, and turns then come from the screen at once', () => {
    const j = join();
    j.screenTurn(screen('hi', 9_000, 10_000));
    expect(stored).toHaveLength(0);
    vi.advanceTimersByTime(WAIT);
    expect(stored).toHaveLength(1);
    expect(j.state).toBe('silent');
    expect(j.note).toMatch(/silent/);
    expect(warnings).toHaveLength(1);
    j.screenTurn(screen('again', 11_000, 12_000));
    expect(stored).toHaveLength(2);
  });

  it('a live channel that misses a report is a disagreement written on the turn (not silence)', () => {
    const j = join();
    j.alive();
    j.screenTurn(screen('hi', 9_000, 10_000));
    vi.advanceTimersByTime(WAIT);
    expect(stored).toHaveLength(1);
    expect(j.state).toBe('live');
    expect(warnings[0]).toMatch(/did not report/);
  });

  it('an answer to another prompt is joined but the disagreement is written on the turn and logged', () => {
    const j = join();
    j.channelTurn(report('answer', 'something else'));
    j.screenTurn(screen('hi', 9_000, 10_500));
    expect(stored[0]!.answer).toBe('answer');
    expect(stored[0]!.disagreement).toMatch(
      /answered “something else” but the screen's turn was for “hi”/,
    );
    expect(warnings[0]).toMatch(/disagree/);
  });

  it('two reports for one screen turn: the last is joined, the count is a disagreement', () => {
    const j = join();
    j.channelTurn(report('a', 'hi'));
    j.channelTurn(report('b', 'hi'));
    j.screenTurn(screen('hi', 9_000, 10_500));
    expect(stored[0]!.answer).toBe('b');
    expect(stored[0]!.disagreement).toMatch(/2 turns where the screen completed one/);
  });

  it('a report older than the screen turn’s start belongs to no turn the screen saw', () => {
    const j = join();
    now = 5_000;
    j.channelTurn(report('stale', 'old'));
    now = 10_000;
    j.screenTurn(screen('hi', 9_000, 10_000));
    expect(warnings.some((w) => w.includes('never completed'))).toBe(true);
    // The stale report is not this turn's answer: it waits for its own.
    expect(stored).toHaveLength(0);
  });

  it('the screen completing the turn well before the agent did is written on the turn', () => {
    const j = join();
    j.screenTurn(screen('hi', 9_000, 10_000));
    now = 13_000;
    j.channelTurn(report('answer', 'hi', { completed_at: 12_900 }));
    expect(stored[0]!.answer).toBe('answer');
    expect(stored[0]!.disagreement).toMatch(/2\.9 s before the agent did/);
  });

  it('a report after the screen completed and stored the turn amends it with the disagreement', () => {
    const j = join(channel({ expectsReport: () => false }));
    j.screenTurn(screen('hi', 9_000, 10_000));
    idle = true;
    j.channelTurn(report('late', 'hi'));
    expect(amended[0]).toMatch(/completed the turn before the agent did/);
  });

  it('a push channel whose agent’s files say the turn ended joins it without waiting for the hook', async () => {
    const j = join(channel({ recorded: () => Promise.resolve(report('from the file', 'hi')) }));
    j.screenTurn(screen('hi', 9_000, 10_000));
    await vi.waitFor(() => expect(stored).toHaveLength(1));
    expect(stored[0]!.answer).toBe('from the file');
    expect(j.state).toBe('live');
    // Nothing is held: the next turn is not queued behind a wait.
    j.screenTurn(screen('next', 10_100, 10_200, true));
    expect(stored.map((t) => t.prompt)).toEqual(['hi', 'next']);
  });

  it('a push channel whose files do not say so yet waits for the hook’s report as before', async () => {
    let read!: () => void;
    const ch = channel({
      recorded: () => new Promise((resolve) => (read = () => resolve(null))),
    });
    const j = join(ch);
    j.screenTurn(screen('hi', 9_000, 10_000));
    read();
    await Promise.resolve();
    expect(stored).toHaveLength(0);
    j.channelTurn(report('from the hook', 'hi'));
    expect(stored.map((t) => t.answer)).toEqual(['from the hook']);
  });

  it('a read of the files that ends after the hook reported adds nothing', async () => {
    let read!: () => void;
    const j = join(
      channel({
        recorded: () =>
          new Promise((resolve) => (read = () => resolve(report('from the file', 'hi')))),
      }),
    );
    j.screenTurn(screen('hi', 9_000, 10_000));
    j.channelTurn(report('from the hook', 'hi'));
    read();
    await Promise.resolve();
    await Promise.resolve();
    expect(stored.map((t) => t.answer)).toEqual(['from the hook']);
  });

  it('a pull channel reads the agent’s record when the screen completes the turn', async () => {
    vi.useRealTimers();
    const j = join(
      channel({
        readTurn: () => Promise.resolve(report('pulled', 'hi')),
        expectsReport: () => false,
      }),
    );
    j.screenTurn(screen('hi', 9_000, 10_000));
    await vi.waitFor(() => expect(stored).toHaveLength(1));
    expect(stored[0]!.answer).toBe('pulled');
    expect(j.state).toBe('live');
  });

  it('a pull channel that cannot read goes silent; the turn keeps the screen text', async () => {
    vi.useRealTimers();
    const j = join(channel({ readTurn: () => Promise.reject(new Error('no chat file')) }));
    j.screenTurn(screen('hi', 9_000, 10_000));
    await vi.waitFor(() => expect(stored).toHaveLength(1));
    expect(stored[0]!.answer).toBeUndefined();
    expect(j.state).toBe('silent');
    expect(j.note).toMatch(/no chat file/);
  });

  it('a live pull channel whose record lacks a turn of the model says so on the turn; a command is no miss', async () => {
    vi.useRealTimers();
    let answer: ChannelTurn | null = report('pulled', 'hi');
    const j = join(
      channel({ readTurn: () => Promise.resolve(answer), expectsReport: () => false }),
    );
    j.screenTurn(screen('hi', 9_000, 10_000));
    await vi.waitFor(() => expect(stored).toHaveLength(1));
    answer = null;
    j.screenTurn(screen('and then?', 11_000, 12_000));
    j.screenTurn(screen('/help', 13_000, 14_000));
    await vi.waitFor(() => expect(stored).toHaveLength(3));
    expect(stored[1]!.answer).toBeUndefined();
    expect(stored[1]!.disagreement).toBe(
      "the agent's record has no turn for “and then?”; its text is the screen's",
    );
    expect(warnings.at(-1)).toContain('and then?');
    expect(stored[2]!.disagreement).toBeUndefined();
    expect(j.state).toBe('live');
  });

  it('dispose stores what is held', () => {
    const j = join();
    j.screenTurn(screen('hi', 9_000, 10_000));
    j.dispose();
    expect(stored).toHaveLength(1);
  });
});

describe('samePrompt', () => {
  it('compares without whitespace, and as prefixes where the screen’s prompt was cut', () => {
    expect(samePrompt('a  b\nc', 'a b c')).toBe(true);
    expect(samePrompt('abcdef', 'abc…')).toBe(true);
    expect(samePrompt('abc', 'abd')).toBe(false);
  });
});

describe('TurnJoin: the agent’s record of a held turn', () => {
  /** Longer than any of these tests: a turn stored before it came from the record. */
  const LONG_WAIT = 60_000;
  /** How late the agent writes its record in these tests (the scenario, not a wait). */
  const LATE_MS = 100;
  let dir: string;
  let path: string;
  let reads: number;

  beforeEach(() => {
    vi.useRealTimers();
    dir = mkdtempSync(joinPath(tmpdir(), 'clippy-turn-join-'));
    path = joinPath(dir, 'transcript.jsonl');
    writeFileSync(path, '{"prompt":"hi"}\n');
    reads = 0;
  });
  afterEach(() => rmSync(dir, { recursive: true, force: true }));

  /** A channel whose record says the turn ended once its file holds an answer line. */
  const recording = () =>
    channel({
      recordPath: () => path,
      recorded: () => {
        reads++;
        return Promise.resolve(
          readFileSync(path, 'utf8').includes('"answer"') ? report('# Answer', 'hi') : null,
        );
      },
    });

  const joinOf = (ch: AgentChannel, waitMs = LONG_WAIT) => join(ch, waitMs, Date.now);

  it('written after the screen completed the turn, it joins the turn as written: no hook report needed', async () => {
    const j = joinOf(recording());
    j.screenTurn(screen('hi', Date.now() - 1_000, Date.now()));
    expect(stored).toHaveLength(0);
    setTimeout(() => appendFileSync(path, '{"answer":"# Answer"}\n'), LATE_MS);
    await vi.waitFor(() => expect(stored).toHaveLength(1), { timeout: 10_000 });
    expect(stored[0]!.answer).toBe('# Answer');
    expect(warnings).toEqual([]);
    j.dispose();
  });

  it('is no longer read once the hook’s report joined the turn', async () => {
    const j = joinOf(recording());
    j.screenTurn(screen('hi', Date.now() - 1_000, Date.now()));
    await vi.waitFor(() => expect(reads).toBe(1));
    j.channelTurn(report('# Answer', 'hi'));
    expect(stored).toHaveLength(1);
    const before = reads;
    appendFileSync(path, '{"more":1}\n');
    await new Promise((r) => setTimeout(r, LATE_MS));
    expect(reads).toBe(before);
    j.dispose();
  });

  /** The hook's report of a turn whose answer the record did not hold yet (Claude's Stop). */
  const answerless = () => ({
    ...report(null, 'hi'),
    note: 'the transcript holds no answer',
    answerToCome: true,
  });

  it('a report without the answer, while the turn is held: the record written after it gives the answer', async () => {
    const j = joinOf(recording());
    j.screenTurn(screen('hi', Date.now() - 1_000, Date.now()));
    j.channelTurn(answerless());
    expect(stored).toHaveLength(0);
    setTimeout(() => appendFileSync(path, '{"answer":"# Answer"}\n'), LATE_MS);
    await vi.waitFor(() => expect(stored).toHaveLength(1), { timeout: 10_000 });
    expect(stored[0]!.answer).toBe('# Answer');
    expect(stored[0]!.disagreement).toBeUndefined();
    j.dispose();
  });

  it('a report without the answer that came before the screen completed the turn waits with it for the record', async () => {
    const j = joinOf(recording());
    const startedAt = Date.now() - 1_000;
    j.channelTurn(answerless());
    j.screenTurn(screen('hi', startedAt, Date.now()));
    expect(stored).toHaveLength(0);
    setTimeout(() => appendFileSync(path, '{"answer":"# Answer"}\n'), LATE_MS);
    await vi.waitFor(() => expect(stored).toHaveLength(1), { timeout: 10_000 });
    expect(stored[0]!.answer).toBe('# Answer');
    j.dispose();
  });

  it('a report without the answer whose record never comes: stored with it once the wait is over, its note kept', async () => {
    const j = joinOf(recording(), LATE_MS);
    j.screenTurn(screen('hi', Date.now() - 1_000, Date.now()));
    j.channelTurn(answerless());
    expect(stored).toHaveLength(0);
    await vi.waitFor(() => expect(stored).toHaveLength(1), { timeout: 10_000 });
    expect(stored[0]!.answer).toBeUndefined();
    expect(stored[0]!.agent?.turn_id).toBe('T1');
    expect(stored[0]!.disagreement).toContain('the transcript holds no answer');
    j.dispose();
  });

  it('a report of a turn without an answer (an API error) is not held for the record', () => {
    const j = joinOf(recording());
    j.screenTurn(screen('hi', Date.now() - 1_000, Date.now()));
    j.channelTurn(report(null, 'hi'));
    expect(stored).toHaveLength(1);
    expect(stored[0]!.answer).toBeUndefined();
    j.dispose();
  });

  it('a report without the answer that waits with its turn is stored with it when the session ends', () => {
    const j = joinOf(recording());
    j.screenTurn(screen('hi', Date.now() - 1_000, Date.now()));
    j.channelTurn(answerless());
    j.dispose();
    expect(stored).toHaveLength(1);
    expect(stored[0]!.agent?.turn_id).toBe('T1');
    expect(stored[0]!.disagreement).toContain('the transcript holds no answer');
  });
});

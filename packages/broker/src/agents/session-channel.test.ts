import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { NewTurn } from '../turn-ring/turn-ring.js';
import { SessionChannel } from './session-channel.js';
import type { AgentChannel, ChannelTurn, ChannelUpdate, ScreenTurnInfo } from './types.js';

// The agent's record followed while the screen has a turn open: its end, read as the file is
// written (kernel file events), tells the screen at once and gives the join the report.

let dir: string;
let file: string;
let stored: NewTurn[];
let ended: number[];
let reads: number;

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'clippy-follow-'));
  file = join(dir, 'record.jsonl');
  stored = [];
  ended = [];
  reads = 0;
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

const report = (answer: string, prompt: string, completedAt: number): ChannelTurn => ({
  answer,
  prompt,
  record: { agent: 'claude', via: 'test', turn_id: 'T', completed_at: completedAt },
});

/** A channel whose record says a turn ended once its file holds `END <prompt>`. */
function channel(hook?: ChannelUpdate): AgentChannel {
  let delivered = false;
  return {
    agent: 'claude',
    agentSession: 'S',
    onEvent: () => Promise.resolve(hook ?? { kind: 'ignored', why: 'test' }),
    expectsReport: (t: ScreenTurnInfo) => !t.interrupted,
    recordPath: () => file,
    recorded: (t: ScreenTurnInfo) => {
      reads++;
      let text = '';
      try {
        text = readFileSync(file, 'utf8');
      } catch {
        return Promise.resolve(null);
      }
      if (delivered || !text.includes(`END ${t.prompt}`)) return Promise.resolve(null);
      delivered = true;
      return Promise.resolve(report('the agent’s answer', t.prompt, Date.now()));
    },
    dispose: () => {},
  };
}

function session(ch: AgentChannel): SessionChannel {
  return new SessionChannel(
    ch,
    { store: (t) => stored.push(t), screenIdle: () => false, amend: () => {} },
    { warn: () => {}, debug: () => {} },
  );
}

const screenTurn = (prompt: string, startedAt: number): NewTurn => ({
  content: new Uint8Array(),
  text: 'screen text',
  prompt,
  interrupted: false,
  truncated: false,
  startedAt,
  endedAt: Date.now(),
});

describe('SessionChannel.follow', () => {
  it('reads the record as it is written: its end of the open turn tells the screen, and the turn then joins at once', async () => {
    writeFileSync(file, 'start\n');
    const s = session(channel());
    const startedAt = Date.now();
    s.follow({ input: 'hi', startedAt }, (at) => ended.push(at));
    appendFileSync(file, 'working\n');
    await vi.waitFor(() => expect(reads).toBeGreaterThan(0));
    expect(ended).toEqual([]);
    appendFileSync(file, 'END hi\n');
    await vi.waitFor(() => expect(ended).toEqual([startedAt]));
    // The screen completes it: stored with the agent's answer, no wait for a hook.
    s.screenTurn(screenTurn('hi', startedAt));
    expect(stored).toHaveLength(1);
    expect((stored[0] as { answer?: string }).answer).toBe('the agent’s answer');
    s.dispose();
  });

  it('watches a record not created yet in its folder', async () => {
    const s = session(channel());
    const startedAt = Date.now();
    s.follow({ input: 'hi', startedAt }, (at) => ended.push(at));
    writeFileSync(file, 'END hi\n');
    await vi.waitFor(() => expect(ended).toEqual([startedAt]));
    s.dispose();
  });

  it("the agent's hook reporting the open turn tells the screen too; a late report of an earlier turn does not", async () => {
    const startedAt = Date.now();
    const late = session(
      channel({ kind: 'turn', turn: report('old answer', 'hi', startedAt - 5_000) }),
    );
    late.follow({ input: 'hi', startedAt }, (at) => ended.push(at));
    await late.event('Stop', '{}');
    expect(ended).toEqual([]);
    late.dispose();
    const s = session(channel({ kind: 'turn', turn: report('answer', 'hi', startedAt + 10) }));
    s.follow({ input: 'hi', startedAt }, (at) => ended.push(at));
    await s.event('Stop', '{}');
    expect(ended).toEqual([startedAt]);
    s.dispose();
  });

  it('a push channel with no record to read (OpenCode’s plugin): its report of the open turn tells the screen', async () => {
    const startedAt = Date.now();
    const {
      recorded: _r,
      recordPath: _p,
      ...push
    } = channel({
      kind: 'turn',
      turn: report('answer', 'hi', startedAt + 10),
    });
    const s = session(push);
    s.follow({ input: 'hi', startedAt }, (at) => ended.push(at));
    await s.event('turn', '{}');
    expect(ended).toEqual([startedAt]);
    s.dispose();
  });

  it('a report read while the screen completed the turn is given to it (it waits for it)', async () => {
    writeFileSync(file, '');
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const ch = channel();
    const read = ch.recorded!.bind(ch);
    let first = true;
    ch.recorded = async (t) => {
      if (first) {
        first = false;
        await gate; // the follow's read, slow
        return read(t);
      }
      return null; // the join's own read finds it taken
    };
    const s = session(ch);
    const startedAt = Date.now();
    s.follow({ input: 'hi', startedAt }, (at) => ended.push(at));
    appendFileSync(file, 'END hi\n');
    await vi.waitFor(() => expect(first).toBe(false));
    s.screenTurn(screenTurn('hi', startedAt));
    s.follow(null, () => {});
    expect(stored).toHaveLength(0); // held for its report
    release();
    await vi.waitFor(() => expect(stored).toHaveLength(1));
    expect((stored[0] as { answer?: string }).answer).toBe('the agent’s answer');
    s.dispose();
  });
});

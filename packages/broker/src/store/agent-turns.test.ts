import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pino } from 'pino';
import { afterEach, beforeEach, expect, it } from 'vitest';
import { storedTurn } from './stored-turn.js';
import { TurnStore } from './turn-store.js';

// A turn whose text is its agent's own answer keeps, across a reopen (a daemon restart): the
// answer as `text`, the screen's text beside it, the agent's record, the disagreement, and the
// session's usage totals (what `revive`, `ls` and `report` read after a restart).

let root: string;
const stores: TurnStore[] = [];

beforeEach(() => {
  root = mkdtempSync(join(tmpdir(), 'clippy-agent-turns-'));
});
afterEach(async () => {
  for (const s of stores.splice(0)) await s.close();
  rmSync(root, { recursive: true, force: true });
});

function open(): TurnStore {
  const s = TurnStore.open({ dir: join(root, 'history'), log: pino({ level: 'silent' }) });
  stores.push(s);
  return s;
}

const meta = {
  id: 's1',
  name: 'claude',
  command: 'claude',
  args: [],
  cwd: '/tmp',
  preset: 'claude',
  created_at: 1,
  cols: 80,
  rows: 24,
};

it('keeps the agent’s answer, the screen’s text, its record and the usage totals across a reopen', async () => {
  const s = open();
  await s.persistSession(meta);
  const agent = {
    agent: 'claude' as const,
    via: 'claude-transcript',
    session_id: 'A-1',
    turn_id: 'P-1',
    model: 'm',
    input_tokens: 12,
    output_tokens: 10,
    completed_at: 5,
  };
  expect(
    await s.persistTurn(
      {
        session: 's1',
        seq: 1,
        timestamp: 10,
        interrupted: false,
        truncated: false,
        duration_ms: 3,
        prompt: 'q',
        content: Buffer.from('\x1b[1m● raw\x1b[0m'),
        text: '```js\nx()\n```',
        text_source: 'agent',
        screen_text: 'x()',
        agent,
        disagreement: 'the screen completed the turn 2.0 s before the agent did',
      },
      { input_tokens: 12, output_tokens: 10 },
    ),
  ).toBe(true);
  await s.persistTurn({
    session: 's1',
    seq: 2,
    timestamp: 20,
    interrupted: true,
    truncated: false,
    duration_ms: 3,
    prompt: 'stop',
    content: Buffer.from('partial'),
    text: 'partial',
  });
  await s.close();
  stores.length = 0;

  const again = open();
  const p = again.session('s1')!;
  const [first, second] = await Promise.all(p.turns.map((r) => again.readTurn(r)));
  const t1 = storedTurn(first!);
  expect(t1).toMatchObject({
    text: '```js\nx()\n```',
    screen_text: 'x()',
    text_source: 'agent',
    agent,
    disagreement: 'the screen completed the turn 2.0 s before the agent did',
  });
  expect(Buffer.from(t1.content).toString()).toBe('\x1b[1m● raw\x1b[0m');
  expect(first!.meta.usage).toEqual({ input_tokens: 12, output_tokens: 10 });
  // A turn from the screen alone reads back as before.
  const t2 = storedTurn(second!);
  expect(t2.text_source).toBe('screen');
  expect(t2.screen_text).toBeUndefined();
  expect(t2.agent).toBeUndefined();
  expect(t2.text).toBe('partial');
});

import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DEFAULT_PRICES, type AgentTurn } from '@clippy/protocol';
import { describe, expect, it } from 'vitest';
import type { AgentChannel, ChannelTurn } from './types.js';
import { WiredChannel, pricedRecord } from './wired-channel.js';
import { TurnRing } from '../turn-ring/turn-ring.js';

const record = (extra: Partial<AgentTurn>): AgentTurn => ({
  agent: 'qwen',
  via: 'qwen-transcript',
  input_tokens: 1_000_000,
  output_tokens: 100_000,
  ...extra,
});

describe('the cost of a turn', () => {
  it('is its tokens at its model’s price (a dated release priced as its model); the agent’s own figure wins', () => {
    const prices = { ...DEFAULT_PRICES, 'my-model': { input: 1, output: 4 } };
    expect(pricedRecord(record({ model: 'my-model' }), prices).cost_usd).toBeCloseTo(1.4);
    expect(
      pricedRecord(record({ model: 'claude-sonnet-4-5-20250929' }), prices).cost_usd,
    ).toBeCloseTo(3 + 1.5);
    expect(pricedRecord(record({ model: 'my-model', cost_usd: 9 }), prices).cost_usd).toBe(9);
  });

  it('says why it is not known instead of costing nothing; a record without tokens has none', () => {
    const unknown = pricedRecord(record({ model: 'fake-model' }), DEFAULT_PRICES);
    expect(unknown.cost_usd).toBeUndefined();
    expect(unknown.cost_unknown).toBe('no price for model fake-model');
    expect(pricedRecord(record({}), DEFAULT_PRICES).cost_unknown).toBe('the agent named no model');
    const bare = { agent: 'qwen', via: 'qwen-stop-hook' } as const;
    expect(pricedRecord(bare, DEFAULT_PRICES)).toEqual(bare);
  });

  it("a session's usage sums the known costs and names the models without a price, once each", () => {
    const ring = new TurnRing('s', { depth: 4, maxTurnBytes: 1024 });
    const turn = (agent: AgentTurn) => ({
      content: new Uint8Array(),
      text: 'x',
      prompt: 'p',
      interrupted: false,
      startedAt: 0,
      endedAt: 1,
      agent,
    });
    const prices = { 'my-model': { input: 1, output: 4 } };
    ring.add(turn(pricedRecord(record({ model: 'my-model' }), prices)));
    ring.add(turn(pricedRecord(record({ model: 'fake-model' }), prices)));
    ring.add(turn(pricedRecord(record({ model: 'fake-model' }), prices)));
    expect(ring.usage).toEqual({
      input_tokens: 3_000_000,
      output_tokens: 300_000,
      cost_usd: expect.closeTo(1.4, 6) as number,
      cost_unknown: 'no price for model fake-model',
    });
  });
});

describe('a wired channel', () => {
  const inner = (turn: ChannelTurn): AgentChannel => ({
    agent: 'qwen',
    agentSession: 'S',
    onEvent: () => Promise.resolve({ kind: 'turn', turn }),
    expectsReport: () => true,
    dispose: () => undefined,
  });

  it("prices the turns its agent reports, has only the agent's own ways of reading, and removes the wiring's files when it goes", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'clippy-wired-'));
    try {
      const file = join(dir, 'qwen-s.json');
      writeFileSync(file, '{}');
      const ch = new WiredChannel(
        inner({ answer: 'a', record: record({ model: 'm' }) }),
        { m: { input: 2, output: 2 } },
        [file],
      );
      const update = await ch.onEvent('Stop', '{}');
      expect(update.kind === 'turn' && update.turn.record.cost_usd).toBeCloseTo(2.2);
      expect(ch.agentSession).toBe('S');
      expect(ch.readTurn).toBeUndefined();
      expect(ch.recorded).toBeUndefined();
      ch.dispose();
      expect(existsSync(file)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

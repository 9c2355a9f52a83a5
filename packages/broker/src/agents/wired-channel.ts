import { rmSync } from 'node:fs';
import { costOf, priceOf, type AgentTurn, type ModelPrice } from '@clippy/protocol';
import type { AgentChannel, ChannelTurn, ChannelUpdate, ScreenTurnInfo } from './types.js';

/** A model's prices by name (protocol's DEFAULT_PRICES with config.json's `pricing` over them). */
export type PriceTable = Readonly<Record<string, ModelPrice>>;

/**
 * The agent's record with its cost: the agent's own figure when it gave one, else its tokens
 * at its model's price; a record with tokens whose price is not known says why (`cost_unknown`)
 * rather than cost nothing.
 */
export function pricedRecord(record: AgentTurn, prices: PriceTable): AgentTurn {
  if (record.cost_usd !== undefined) return record;
  if (record.input_tokens === undefined && record.output_tokens === undefined) return record;
  if (!record.model) return { ...record, cost_unknown: 'the agent named no model' };
  const price = priceOf(record.model, prices);
  if (!price) return { ...record, cost_unknown: `no price for model ${record.model}` };
  return {
    ...record,
    cost_usd: costOf(price, record.input_tokens ?? 0, record.output_tokens ?? 0),
  };
}

/**
 * A session's channel as its session uses it: the agent's own channel (its definition's), each
 * turn it reports priced (one place for every agent), and the files its wiring wrote removed when
 * it goes.
 */
export class WiredChannel implements AgentChannel {
  readonly readTurn?: (turn: ScreenTurnInfo) => Promise<ChannelTurn | null>;
  readonly recorded?: (turn: ScreenTurnInfo) => Promise<ChannelTurn | null>;
  readonly recordPath?: () => string | undefined;

  constructor(
    private readonly inner: AgentChannel,
    private readonly prices: PriceTable,
    private readonly files: readonly string[] = [],
  ) {
    // Only what the agent's channel has: the join and the session look for these by presence.
    const { readTurn, recorded, recordPath } = inner;
    if (readTurn) this.readTurn = async (t) => this.priced(await readTurn.call(inner, t));
    if (recorded) this.recorded = async (t) => this.priced(await recorded.call(inner, t));
    if (recordPath) this.recordPath = () => recordPath.call(inner);
  }

  get agent() {
    return this.inner.agent;
  }

  get agentSession(): string | undefined {
    return this.inner.agentSession;
  }

  async onEvent(event: string, payload: string): Promise<ChannelUpdate> {
    const update = await this.inner.onEvent(event, payload);
    return update.kind === 'turn' ? { ...update, turn: this.priced(update.turn)! } : update;
  }

  expectsReport(turn: ScreenTurnInfo): boolean {
    return this.inner.expectsReport(turn);
  }

  dispose(): void {
    this.inner.dispose();
    for (const file of this.files) rmSync(file, { force: true });
  }

  private priced(turn: ChannelTurn | null): ChannelTurn | null {
    return turn && { ...turn, record: pricedRecord(turn.record, this.prices) };
  }
}

import { rmSync } from 'node:fs';
import type { AgentChannel, ChannelTurn, ChannelUpdate, ScreenTurnInfo } from './types.js';

/**
 * A session's channel as its session uses it: the agent's own channel (its definition's), and
 * the files its wiring wrote removed when it goes.
 */
export class WiredChannel implements AgentChannel {
  readonly readTurn?: (turn: ScreenTurnInfo) => Promise<ChannelTurn | null>;
  readonly recorded?: (turn: ScreenTurnInfo) => Promise<ChannelTurn | null>;
  readonly recordPath?: () => string | undefined;

  constructor(
    private readonly inner: AgentChannel,
    private readonly files: readonly string[] = [],
  ) {
    // Only what the agent's channel has: the join and the session look for these by presence.
    const { readTurn, recorded, recordPath } = inner;
    if (readTurn) this.readTurn = (t) => readTurn.call(inner, t);
    if (recorded) this.recorded = (t) => recorded.call(inner, t);
    if (recordPath) this.recordPath = () => recordPath.call(inner);
  }

  get agent() {
    return this.inner.agent;
  }

  get agentSession(): string | undefined {
    return this.inner.agentSession;
  }

  onEvent(event: string, payload: string): Promise<ChannelUpdate> {
    return this.inner.onEvent(event, payload);
  }

  expectsReport(turn: ScreenTurnInfo): boolean {
    return this.inner.expectsReport(turn);
  }

  dispose(): void {
    this.inner.dispose();
    for (const file of this.files) rmSync(file, { force: true });
  }
}

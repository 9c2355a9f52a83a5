/**
 * How a navigator run appears in the broker: an agent session whose turns are its Turn Reports
 * and final context, and whose input is feedback. Behind an interface so the loop runs (and is
 * tested) without a broker.
 */
export interface BrokerLink {
  /** Registers the run as a session (no-op without a broker). */
  start(info: { goal: string; root: string }): Promise<void>;
  /** Busy while a step runs, idle while waiting (for the user or the next step). */
  setBusy(busy: boolean): Promise<void>;
  /** Publishes a completed turn (a rendered Turn Report, or the final context). */
  turn(text: string): Promise<void>;
  /** Text injected into the session since the last call: feedback for the next step. */
  takeFeedback(): string[];
  /** Deregisters; safe to call twice. */
  close(): Promise<void>;
}

/** The standalone run: no broker. */
export class NullBrokerLink implements BrokerLink {
  async start(): Promise<void> {}
  async setBusy(): Promise<void> {}
  async turn(): Promise<void> {}
  takeFeedback(): string[] {
    return [];
  }
  async close(): Promise<void> {}
}

/** A link that keeps what it was sent (tests, and the JSON result's view of the turns). */
export class RecordingBrokerLink implements BrokerLink {
  readonly turns: string[] = [];
  readonly states: boolean[] = [];
  readonly injected: string[] = [];
  started = false;
  closed = false;
  async start(): Promise<void> {
    this.started = true;
  }
  async setBusy(busy: boolean): Promise<void> {
    this.states.push(busy);
  }
  async turn(text: string): Promise<void> {
    this.turns.push(text);
  }
  inject(text: string): void {
    this.injected.push(text);
  }
  takeFeedback(): string[] {
    return this.injected.splice(0);
  }
  async close(): Promise<void> {
    this.closed = true;
  }
}

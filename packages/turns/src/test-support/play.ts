import type { DetectorEvent, TurnDetector } from '../detector.js';

export type Step = [number, 'o' | 'i', string | Uint8Array];

const enc = new TextEncoder();

/**
 * Plays a recorded session into a detector the way the broker drives it: events in time order,
 * and tick() whenever nextDeadline() falls before the next event. Returns every event emitted.
 */
export function play(d: TurnDetector, steps: Step[], endAt?: number): DetectorEvent[] {
  const out: DetectorEvent[] = [];
  const runDeadlines = (until: number): void => {
    for (let guard = 0; guard < 1000; guard++) {
      const dl = d.nextDeadline();
      if (dl === null || dl > until) return;
      out.push(...d.tick(dl));
    }
    throw new Error('nextDeadline() did not advance');
  };
  for (const [at, kind, data] of steps) {
    runDeadlines(at);
    const bytes = typeof data === 'string' ? enc.encode(data) : data;
    out.push(...(kind === 'o' ? d.onOutput(bytes, at) : d.onInput(bytes, at)));
  }
  runDeadlines(endAt ?? (steps.at(-1)?.[0] ?? 0) + 10_000);
  return out;
}

export function turns(events: DetectorEvent[]): Extract<DetectorEvent, { type: 'turn' }>[] {
  return events.filter((e): e is Extract<DetectorEvent, { type: 'turn' }> => e.type === 'turn');
}

export function decode(b: Uint8Array): string {
  return new TextDecoder().decode(b);
}

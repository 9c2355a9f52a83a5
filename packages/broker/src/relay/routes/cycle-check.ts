import type { End, Leg } from './records.js';

// Routes may not feed each other for ever: a route that would close a cycle of routes is
// refused when added (only a loop, which has an end condition, goes round). This sees the
// routes of this daemon; a cycle through another daemon is bounded by the hop counts that
// travel with its turns (hop-count.ts).

/** The sessions of a cycle that routes (not loops) from `from` into `to` would close, or null. */
export function cycleThrough(legs: Iterable<Leg>, from: End[], to: End): string[] | null {
  const next = new Map<string, End[]>();
  for (const leg of legs) {
    if (leg.loop || leg.state === 'ended') continue;
    for (const f of leg.from) next.set(f.session, [...(next.get(f.session) ?? []), leg.to]);
  }
  const sources = new Set(from.map((f) => f.session));
  // Depth-first from the target: reaching a source means the new route closes a cycle.
  const path: End[] = [to];
  const seen = new Set<string>();
  const walk = (at: End): boolean => {
    if (sources.has(at.session)) return true;
    if (seen.has(at.session)) return false;
    seen.add(at.session);
    for (const n of next.get(at.session) ?? []) {
      path.push(n);
      if (walk(n)) return true;
      path.pop();
    }
    return false;
  };
  if (!walk(to)) return null;
  const last = path[path.length - 1]!;
  return [last.name, ...path.map((e) => e.name)].filter((_, i, a) => i === 0 || a[i] !== a[i - 1]);
}

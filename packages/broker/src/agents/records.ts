/** Small readers for the agents' JSON records: a field of the wanted type, or undefined. */

export type Json = Record<string, unknown>;

export function obj(v: unknown): Json | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
}

export function str(v: unknown): string | undefined {
  return typeof v === 'string' ? v : undefined;
}

export function num(v: unknown): number | undefined {
  return typeof v === 'number' && Number.isFinite(v) ? v : undefined;
}

/** An ISO timestamp as epoch ms. */
export function time(v: unknown): number | undefined {
  const s = str(v);
  if (s === undefined) return undefined;
  const ms = Date.parse(s);
  return Number.isNaN(ms) ? undefined : ms;
}

/** The payload of a hook event, which must be a JSON object. */
export function parsePayload(agent: string, event: string, payload: string): Json {
  let value: unknown;
  try {
    value = JSON.parse(payload);
  } catch (err) {
    throw new Error(`${agent} ${event}: the payload is not JSON (${(err as Error).message})`);
  }
  const o = obj(value);
  if (!o) throw new Error(`${agent} ${event}: the payload is not a JSON object`);
  return o;
}

/** A value with its undefined fields left out (records stay small and compare cleanly). */
export function defined<T extends object>(o: T): T {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as T;
}

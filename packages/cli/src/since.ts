import { CliError } from './errors.js';
import { EXIT } from './exit-codes.js';

const UNIT_MS: Record<string, number> = {
  s: 1000,
  m: 60_000,
  h: 3_600_000,
  d: 86_400_000,
  w: 7 * 86_400_000,
};

/**
 * `--since` to an epoch ms: a duration back from now (`90s`, `30m`, `12h`, `2d`, `1w`) or a
 * date/time JavaScript reads (`2026-11-20`, `2026-11-20T14:00`).
 */
export function parseSince(given: string, now = Date.now()): number {
  const m = /^(\d+(?:\.\d+)?)([smhdw])$/.exec(given.trim());
  if (m) return now - Number(m[1]) * UNIT_MS[m[2]!]!;
  const t = Date.parse(given);
  if (Number.isFinite(t)) return t;
  throw new CliError(
    `--since takes a duration (90s, 30m, 12h, 2d, 1w) or a date (2026-11-20), not '${given}'`,
    EXIT.usage,
  );
}

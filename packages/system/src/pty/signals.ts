import { constants } from 'node:os';

const byNumber = new Map<number, string>();
for (const [name, value] of Object.entries(constants.signals)) {
  if (!byNumber.has(value)) byNumber.set(value, name);
}

/** Maps a signal number (as node-pty reports it) to its name, e.g. 9 → SIGKILL. */
export function signalName(signo: number): string {
  return byNumber.get(signo) ?? `SIG${signo}`;
}

/** Normalizes a signal given by name (`HUP`, `sighup`, `SIGHUP`) or number; null if unknown. */
export function parseSignal(input: string): NodeJS.Signals | null {
  const trimmed = input.trim();
  if (/^\d+$/.test(trimmed)) {
    const name = byNumber.get(Number(trimmed));
    return (name as NodeJS.Signals | undefined) ?? null;
  }
  const upper = trimmed.toUpperCase();
  const name = upper.startsWith('SIG') ? upper : `SIG${upper}`;
  return Object.hasOwn(constants.signals, name) ? (name as NodeJS.Signals) : null;
}

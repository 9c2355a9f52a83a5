import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import type { AgentChannel } from './types.js';

/**
 * The environment variable that carries a session's hook secret to its agent, and from it to
 * every hook the agent runs (`clippy-hook` sends it with each report). In the environment, not
 * on a command line: another user can read any process's arguments (`/proc/PID/cmdline`, `ps`)
 * but not its environment (`/proc/PID/environ` is the owner's only). The hook entry reads the
 * same name (hook-entry.ts keeps its own copy: it imports nothing of the daemon).
 */
export const HOOK_SECRET_VAR = 'CLIPPY_HOOK_SECRET';

/** Random bytes in a secret: far beyond guessing, as the web view's token. */
const SECRET_BYTES = 24;

/** A new session's secret. */
export function newHookSecret(): string {
  return randomBytes(SECRET_BYTES).toString('base64url');
}

/** Each wired channel's secret: known to the daemon and given to that session's agent alone. */
const secrets = new WeakMap<AgentChannel, string>();

export function rememberSecret(channel: AgentChannel, secret: string): void {
  secrets.set(channel, secret);
}

/** Whether `given` is the secret `channel`'s agent was given (compared in constant time). */
export function isChannelSecret(channel: AgentChannel, given: string | undefined): boolean {
  const secret = secrets.get(channel);
  if (secret === undefined || given === undefined) return false;
  const a = createHash('sha256').update(given).digest();
  const b = createHash('sha256').update(secret).digest();
  return timingSafeEqual(a, b);
}

/** The environment without a hook secret (one inherited from the agent that started clippy). */
export function withoutSecret(env: Record<string, string>): Record<string, string> {
  if (!(HOOK_SECRET_VAR in env)) return env;
  const { [HOOK_SECRET_VAR]: _secret, ...rest } = env;
  return rest;
}

/** How long `until` waits by default: generous for a loaded 2-core CI machine. */
export const UNTIL_TIMEOUT_MS = 5_000;
/** Pause between two checks of the condition. */
const UNTIL_POLL_MS = 5;

/** Resolves once `cond()` holds; throws (naming `what`) if it does not within `timeoutMs`. */
export async function until(
  cond: () => boolean,
  what = 'condition',
  timeoutMs = UNTIL_TIMEOUT_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, UNTIL_POLL_MS));
  }
}

/** Pause between two checks of an asynchronous condition (a request, a command). */
const EVENTUALLY_POLL_MS = 20;

/** What a check of `eventually` gives while its condition does not hold yet. */
type NotYet = false | null | undefined;

/**
 * `until` for a condition that needs a request or a command to check, or that finds a value:
 * resolves with the first result of `check()` that is not false, null or undefined; throws if
 * none comes within `timeoutMs`, naming `what` (a function is asked only then, e.g. for the
 * output seen so far).
 */
export async function eventually<T>(
  check: () => T | NotYet | Promise<T | NotYet>,
  what: string | (() => string | Promise<string>) = 'condition',
  timeoutMs = UNTIL_TIMEOUT_MS,
  pollMs = EVENTUALLY_POLL_MS,
): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await check();
    if (value !== false && value !== null && value !== undefined) return value;
    if (Date.now() > deadline) {
      const named = typeof what === 'string' ? what : await what();
      throw new Error(`${named} not met within ${timeoutMs} ms`);
    }
    await new Promise((r) => setTimeout(r, pollMs));
  }
}

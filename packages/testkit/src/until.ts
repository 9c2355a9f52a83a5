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

/**
 * `until` for a condition that needs a request or a command to check: resolves once `cond()`
 * resolves true; throws (naming `what`) if it does not within `timeoutMs`.
 */
export async function eventually(
  cond: () => boolean | Promise<boolean>,
  what = 'condition',
  timeoutMs = UNTIL_TIMEOUT_MS,
): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await cond())) {
    if (Date.now() > deadline) throw new Error(`${what} not met within ${timeoutMs} ms`);
    await new Promise((r) => setTimeout(r, EVENTUALLY_POLL_MS));
  }
}

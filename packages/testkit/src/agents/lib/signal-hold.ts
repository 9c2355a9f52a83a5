/**
 * A hold a test releases by sending the agent SIGUSR1: the agent stays in a state (thinking,
 * between two pieces) exactly until the test has seen what it waits for, however loaded the
 * machine (a pause is a timing window). A SIGUSR1 that comes before the hold ends it at once.
 */
export function signalHold(): () => Promise<void> {
  let released = false;
  let wake: (() => void) | null = null;
  process.on('SIGUSR1', () => {
    released = true;
    wake?.();
  });
  return async () => {
    if (!released) await new Promise<void>((r) => (wake = r));
  };
}

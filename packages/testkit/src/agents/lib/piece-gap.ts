import type { AgentOptions } from './options.js';
import { sleep } from './sleep.js';

/**
 * The pause between two pieces of an answer (`--pause` ms). With `--hold`, the first answer's
 * first pause lasts until the agent gets SIGUSR1 instead: a test keeps the agent busy exactly
 * until it has seen what it waits for, however loaded the machine (a pause is a timing window).
 * A SIGUSR1 that comes before the pause ends it at once.
 */
export function pieceGap(opts: AgentOptions): () => Promise<void> {
  let holding = opts.hold;
  let released = false;
  let wake: (() => void) | null = null;
  if (opts.hold) {
    process.on('SIGUSR1', () => {
      released = true;
      wake?.();
    });
  }
  return async () => {
    if (!holding) return sleep(opts.pause);
    holding = false;
    if (!released) await new Promise<void>((r) => (wake = r));
  };
}

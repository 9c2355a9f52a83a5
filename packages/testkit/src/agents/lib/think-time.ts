import type { AgentOptions } from './options.js';
import { signalHold } from './signal-hold.js';
import { sleep } from './sleep.js';

/**
 * The think time before an answer's first output (`--delay` ms). With `--hold-think`, the
 * first answer's lasts until the agent gets SIGUSR1 instead (see signal-hold.ts): a test sees
 * the agent busy for as long as it needs to.
 */
export function thinkTime(opts: AgentOptions): () => Promise<void> {
  let holding = opts.holdThink;
  const hold = opts.holdThink ? signalHold() : null;
  return async () => {
    if (!holding) return sleep(opts.delay);
    holding = false;
    await hold!();
  };
}

import type { AgentOptions } from './options.js';
import { signalHold } from './signal-hold.js';
import { sleep } from './sleep.js';

/**
 * The pause between two pieces of an answer (`--pause` ms). With `--hold`, the first answer's
 * first pause lasts until the agent gets SIGUSR1 instead (see signal-hold.ts).
 */
export function pieceGap(opts: AgentOptions): () => Promise<void> {
  let holding = opts.hold;
  const hold = opts.hold ? signalHold() : null;
  return async () => {
    if (!holding) return sleep(opts.pause);
    holding = false;
    await hold!();
  };
}

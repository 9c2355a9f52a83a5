import { runLineAgent } from './lib/line-agent.js';
import { parseAgentOptions, type AgentOptions } from './lib/options.js';
import { runTuiAgent } from './lib/tui-agent.js';

/** Runs the agent style chosen by `--style` with the given defaults. */
export async function runStyled(defaults: Partial<AgentOptions>): Promise<void> {
  const opts = parseAgentOptions(process.argv.slice(2), defaults);
  await (opts.style === 'claude' ? runTuiAgent(opts) : runLineAgent(opts));
}

import type { ClippyClient } from '@clippy/client';
import { CliError } from '../errors.js';
import type { AdapterName, FocusAdapter } from './adapter.js';
import { focusReportAdapter } from './focus-report-adapter.js';
import { tmuxAdapter } from './tmux-adapter.js';
import { x11Adapter } from './x11-adapter.js';

/** Every adapter, in the order they are tried when the command does not run inside tmux. */
export const ADAPTERS: readonly FocusAdapter[] = [focusReportAdapter, tmuxAdapter, x11Adapter];
/**
 * Inside tmux (a key binding's `run-shell`, a pane) the user looks at tmux, and tmux knows the
 * pane it shows; focus reports reach its panes only when it forwards them (`focus-events`).
 */
export const ADAPTERS_IN_TMUX: readonly FocusAdapter[] = [
  tmuxAdapter,
  focusReportAdapter,
  x11Adapter,
];

/** The order for a command started with this environment: tmux first inside tmux. */
export function adapterOrder(env: NodeJS.ProcessEnv = process.env): readonly FocusAdapter[] {
  return env.TMUX ? ADAPTERS_IN_TMUX : ADAPTERS;
}

export interface FocusedSession {
  session: string;
  name: string;
  /** The adapter that answered. */
  via: AdapterName;
}

/**
 * The session the user is looking at: the first adapter with an answer wins (`only` limits them,
 * `order` is `adapterOrder()` unless given). None: a CliError listing each adapter's reason.
 */
export async function resolveFocused(
  client: ClippyClient,
  only?: readonly AdapterName[],
  order: readonly FocusAdapter[] = adapterOrder(),
): Promise<FocusedSession> {
  const reasons: string[] = [];
  for (const adapter of order) {
    if (only && !only.includes(adapter.name)) continue;
    const answer = await adapter.resolve(client);
    if (!('none' in answer)) return { ...answer, via: adapter.name };
    reasons.push(`${adapter.name}: ${answer.none}`);
  }
  throw new CliError(`no focused session (${reasons.join('; ')})`);
}

import type { ClippyClient } from '@clippy/client';
import { CliError } from '../errors.js';
import type { AdapterName, FocusAdapter } from './adapter.js';
import { focusReportAdapter } from './focus-report-adapter.js';
import { tmuxAdapter } from './tmux-adapter.js';
import { x11Adapter } from './x11-adapter.js';

/** Every adapter, in the order they are tried. */
export const ADAPTERS: readonly FocusAdapter[] = [focusReportAdapter, tmuxAdapter, x11Adapter];

export interface FocusedSession {
  session: string;
  name: string;
  /** The adapter that answered. */
  via: AdapterName;
}

/**
 * The session the user is looking at: the first adapter with an answer wins (`only` limits them).
 * None: a CliError listing each adapter's reason.
 */
export async function resolveFocused(
  client: ClippyClient,
  only?: readonly AdapterName[],
): Promise<FocusedSession> {
  const reasons: string[] = [];
  for (const adapter of ADAPTERS) {
    if (only && !only.includes(adapter.name)) continue;
    const answer = await adapter.resolve(client);
    if (!('none' in answer)) return { ...answer, via: adapter.name };
    reasons.push(`${adapter.name}: ${answer.none}`);
  }
  throw new CliError(`no focused session (${reasons.join('; ')})`);
}

import type { ClippyClient } from '@clippy/client';

/** The resolvers, in the order they are tried. */
export const ADAPTER_NAMES = ['focus-report', 'tmux', 'x11'] as const;
export type AdapterName = (typeof ADAPTER_NAMES)[number];

/** A session an adapter found, or why it has no answer (it never guesses). */
export type AdapterAnswer = { session: string; name: string } | { none: string };

/** Answers "which session is the user looking at" one way; adapters only find PIDs. */
export interface FocusAdapter {
  readonly name: AdapterName;
  resolve(client: ClippyClient): Promise<AdapterAnswer>;
}

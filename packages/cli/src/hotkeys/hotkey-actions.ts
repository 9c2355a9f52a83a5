import { capturedSize } from '../turn-output.js';
import type { ClippyClient } from '@clippy/client';
import { showFeedback, type FeedbackMode, type FeedbackPlace } from '../focus/feedback.js';
import { ADAPTERS, resolveFocused, type FocusedSession } from '../focus/resolve-focused.js';
import { injectedLine, requestInjection } from '../inject-options.js';
import { turnCall } from '../turn-exits.js';

export type HotkeyAction = 'capture' | 'paste';

/** What one key press did: its one-line outcome, where the user was shown it, and how long it took. */
export interface PressOutcome {
  action: HotkeyAction;
  ok: boolean;
  text: string;
  shown: FeedbackPlace;
  ms: number;
}

/**
 * Runs a hotkey's action on the focused session, one press at a time (a second press waits for
 * the first), over one connection to the daemon that is made again when it is lost.
 */
export class HotkeyActions {
  private client: ClippyClient | null = null;
  private queue: Promise<unknown> = Promise.resolve();

  constructor(
    private readonly connect: () => Promise<ClippyClient>,
    private readonly feedback: FeedbackMode,
  ) {}

  press(action: HotkeyAction): Promise<PressOutcome> {
    const next = this.queue.then(() => this.run(action));
    this.queue = next.catch(() => {});
    return next;
  }

  private async connection(): Promise<ClippyClient> {
    if (this.client?.isOpen) return this.client;
    this.client = await this.connect();
    return this.client;
  }

  private async run(action: HotkeyAction): Promise<PressOutcome> {
    const started = performance.now();
    let client: ClippyClient | null = null;
    let focused: FocusedSession | undefined;
    let ok = true;
    let text: string;
    try {
      client = await this.connection();
      const c = client;
      // The key was pressed in an X window: tmux answers first only for a tmux key binding.
      focused = await resolveFocused(c, undefined, ADAPTERS);
      const f = focused;
      if (action === 'capture') {
        const r = await turnCall(() => c.request('capture', { session: f.session }));
        text = `captured ${r.turn_id} from ${f.name} ${capturedSize(r)}`;
      } else {
        const r = await requestInjection(c, {}, 'paste', { session: f.session });
        text = injectedLine('pasted', r, f.name);
      }
    } catch (err) {
      ok = false;
      text = `${action} failed: ${err instanceof Error ? err.message : String(err)}`;
    }
    const ms = performance.now() - started;
    const shown = await showFeedback(
      client,
      { text, isError: !ok, ...(focused ? { session: focused.session } : {}) },
      this.feedback,
    );
    return { action, ok, text, shown, ms };
  }

  async dispose(): Promise<void> {
    await this.queue;
    await this.client?.close();
    this.client = null;
  }
}

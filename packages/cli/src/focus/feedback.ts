import type { ClippyClient } from '@clippy/client';
import { runProgram } from '../run-program.js';

/** How long a notification helper may take before the terminal is used instead. */
const NOTIFY_TIMEOUT_MS = 2_000;

/** Where feedback goes: `auto` tries a desktop notification, then the terminal. */
export type FeedbackMode = 'auto' | 'desktop' | 'terminal';

/** Where a message ended up (`none`: nowhere the user looks; the caller prints it). */
export type FeedbackPlace = 'desktop' | 'tmux' | 'terminal' | 'none';

export interface Feedback {
  text: string;
  isError: boolean;
  /** The session the user looks at, when known: its attached terminals show the message. */
  session?: string;
}

/**
 * Shows a one-line message where the user looks, not in a log: a desktop notification
 * (`notify-send`) when a desktop is there, else tmux's message line when called from tmux, else
 * the bottom line of the focused session's terminals (through their attach clients).
 */
export async function showFeedback(
  client: ClippyClient | null,
  message: Feedback,
  mode: FeedbackMode = 'auto',
  env: NodeJS.ProcessEnv = process.env,
): Promise<FeedbackPlace> {
  const hasDesktop = Boolean(env.DISPLAY || env.WAYLAND_DISPLAY || env.DBUS_SESSION_BUS_ADDRESS);
  if (mode !== 'terminal' && hasDesktop) {
    try {
      await runProgram(
        'notify-send',
        [
          '--app-name=clippy',
          `--urgency=${message.isError ? 'critical' : 'low'}`,
          'clippy',
          message.text,
        ],
        { env, timeout: NOTIFY_TIMEOUT_MS },
      );
      return 'desktop';
    } catch {
      // No notify-send, or no notification daemon answering: the terminal it is.
    }
  }
  if (env.TMUX) {
    try {
      await runProgram('tmux', ['display-message', `clippy: ${message.text}`], {
        env,
        timeout: NOTIFY_TIMEOUT_MS,
      });
      return 'tmux';
    } catch {
      // The tmux server went away: try the attached terminal.
    }
  }
  if (client && message.session) {
    try {
      const { delivered } = await client.request('notice', {
        session: message.session,
        text: message.text,
      });
      if (delivered > 0) return 'terminal';
    } catch {
      // The session is gone: nowhere left to show it.
    }
  }
  return 'none';
}

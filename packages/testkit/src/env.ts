/**
 * Environments for the processes a test starts, cut off from the user's own machine: a test's
 * clippy must not type into the user's tmux, grab keys on their display, fill their clipboard,
 * pop notifications on their desktop, call Gemini with their key or talk to their own daemon.
 */

/**
 * The ways out to the user's desktop: tmux (which pane is focused, where feedback shows), an X
 * or Wayland display (clipboard, key grabs) and the session bus (notifications).
 */
export const DESKTOP_VARS = [
  'TMUX',
  'TMUX_PANE',
  'DISPLAY',
  'WAYLAND_DISPLAY',
  'DBUS_SESSION_BUS_ADDRESS',
] as const;

/** What points clippy at Gemini (with the user's key) or at the user's own daemon. */
export const OUTSIDE_SERVICE_VARS = [
  'GEMINI_API_KEY',
  'GOOGLE_API_KEY',
  'GEMINI_BASE_URL',
  'CLIPPY_SOCKET',
] as const;

/** A copy of `env` without the variables named in `groups` and without unset ones. */
export function envWithout(
  env: NodeJS.ProcessEnv,
  ...groups: readonly (readonly string[])[]
): Record<string, string> {
  const drop = new Set(groups.flat());
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(env)) if (v !== undefined && !drop.has(k)) out[k] = v;
  return out;
}

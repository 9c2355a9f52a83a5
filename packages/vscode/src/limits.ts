// The extension's fixed limits, as the Neovim plugin has them (editors/nvim/lua/clippy/config.lua):
// nothing the daemon does or fails to do may freeze the editor.

/** How long a plain request (lists, relay, capture, a turn) may wait for its answer. */
export const REQUEST_TIMEOUT_MS = 10_000;
/**
 * How long a request that types into a session may wait: the daemon waits up to 15 s for the
 * target to become idle and then confirms Enter (the CLI's INJECT_REQUEST_TIMEOUT_MS).
 */
export const INJECT_TIMEOUT_MS = 60_000;
/** How long `clippy daemon start` may take: it waits 5 s itself, plus node's start on a loaded machine. */
export const AUTOSTART_TIMEOUT_MS = 20_000;
/** How long closing a terminal waits for the daemon to confirm the detach before it goes anyway. */
export const DETACH_TIMEOUT_MS = 1_000;
/** The newest turns a session shows in the view when expanded: enough to pick one, not a history browser. */
export const TURNS_IN_VIEW = 20;
/** Bytes of a failed CLI run's stderr kept for its error message: its last lines say why. */
export const STDERR_TAIL_BYTES = 4_000;

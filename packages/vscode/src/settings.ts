import * as vscode from 'vscode';

/** The extension's settings (contributes.configuration in package.json; docs/editors.md lists them). */
export interface Settings {
  /** The daemon's socket; undefined: $CLIPPY_SOCKET, else $XDG_RUNTIME_DIR/clippy/broker.sock. */
  socket: string | undefined;
  /** The clippy CLI as a program and its first arguments: it starts the daemon and runs `navigate`. */
  command: string[];
  /** Start the daemon (`clippy daemon start`) when none answers. */
  autostart: boolean;
  /** `unix`: frames on the daemon's socket; `ws`: its WebSocket endpoint (the socket beside it). */
  transport: 'unix' | 'ws';
  /** How long Ask waits for the answer (ms); 0: no limit. */
  askTimeoutMs: number;
  /** Notify when a session becomes blocked (asks a question). */
  notifyBlocked: boolean;
  /** Notify when a session finishes a turn. */
  notifyTurns: boolean;
}

/** The CLI's default: `clippy` on the PATH. */
const DEFAULT_COMMAND = ['clippy'];
/** Ask's default wait, as the CLI's and the Neovim plugin's: ten minutes. */
const DEFAULT_ASK_TIMEOUT_MS = 600_000;

export function readSettings(): Settings {
  const c = vscode.workspace.getConfiguration('clippy');
  const socket = c.get<string>('socket')?.trim();
  const command = c.get<string | string[]>('command');
  const list = (Array.isArray(command) ? command : command ? [command] : []).filter(
    (p) => typeof p === 'string' && p !== '',
  );
  return {
    socket: socket ? socket : undefined,
    command: list.length > 0 ? list : DEFAULT_COMMAND,
    autostart: c.get<boolean>('autostart') ?? true,
    transport: c.get<string>('transport') === 'ws' ? 'ws' : 'unix',
    askTimeoutMs: Math.max(0, c.get<number>('askTimeoutMs') ?? DEFAULT_ASK_TIMEOUT_MS),
    notifyBlocked: c.get<boolean>('notifications.blocked') ?? true,
    notifyTurns: c.get<boolean>('notifications.turns') ?? true,
  };
}

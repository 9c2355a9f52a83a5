import type { DaemonLink } from '../daemon-link.js';
import type { Processes } from '../processes.js';
import type { SessionModel } from '../session-model.js';
import type { Settings } from '../settings.js';
import type { Terminals } from '../terminals.js';
import type { TurnDocuments } from '../turn-documents.js';

/** What every command may use: the daemon, what it said, and the editor parts of the extension. */
export interface CommandContext {
  link: DaemonLink;
  model: SessionModel;
  terminals: Terminals;
  turns: TurnDocuments;
  processes: Processes;
  settings: () => Settings;
  /** Sessions Ask waits on (by ID): their answer is shown, so no turn notification for it. */
  asking: Set<string>;
}

/** One command of the palette and the menus (package.json contributes.commands lists each). */
export interface Command {
  id: string;
  /**
   * Runs it; the arguments are what VS Code passes (a view row, a file) or what another command
   * passes. Errors are shown by the caller; cancelling a picker just returns.
   */
  run(ctx: CommandContext, ...args: unknown[]): Promise<unknown>;
}

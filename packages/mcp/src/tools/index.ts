import type { Tool } from '../tool.js';
import { ask } from './ask.js';
import { diff } from './diff.js';
import { kill } from './kill.js';
import { listSessions } from './list-sessions.js';
import { newSession } from './new-session.js';
import { readTurn } from './read-turn.js';
import { relay } from './relay.js';
import { send } from './send.js';
import { wait } from './wait.js';

/** Every tool, in the order an agent's tool list shows them: one file each, registered here. */
export const TOOLS: readonly Tool[] = [
  listSessions,
  ask,
  send,
  wait,
  readTurn,
  relay,
  newSession,
  diff,
  kill,
] as unknown as readonly Tool[];

/** The tools `clippy mcp --read-only` offers: they change nothing. */
export const READ_ONLY_TOOLS: readonly string[] = TOOLS.filter((t) => t.readOnly).map(
  (t) => t.name,
);

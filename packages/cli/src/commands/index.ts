import type { CommandModule } from 'yargs';

// eslint-disable-next-line @typescript-eslint/no-explicit-any
export type AnyCommand = CommandModule<any, any>;

/**
 * The command table: one file per command (tmux's cmd-*.c), registered here once, in the order
 * `clippy --help` lists them, with the names each answers to. A command's module (and what it
 * imports: the client, the protocol's schemas, the turn engine…) is loaded only when it runs:
 * loading all of them cost every invocation some 0.2 s.
 */
const TABLE: [names: string[], load: () => Promise<{ default: AnyCommand }>][] = [
  [['new'], () => import('./new.js')],
  [['attach'], () => import('./attach.js')],
  [['ls', 'list'], () => import('./ls.js')],
  [['kill'], () => import('./kill.js')],
  [['rm'], () => import('./rm.js')],
  [['diff'], () => import('./diff.js')],
  [['revive'], () => import('./revive.js')],
  [['send'], () => import('./send.js')],
  [['resize'], () => import('./resize.js')],
  [['turns'], () => import('./turns.js')],
  [['show'], () => import('./show.js')],
  [['capture'], () => import('./capture.js')],
  [['paste'], () => import('./paste.js')],
  [['relay'], () => import('./relay.js')],
  [['route'], () => import('./route.js')],
  [['loop'], () => import('./loop.js')],
  [['focused'], () => import('./focused.js')],
  [['hotkeys'], () => import('./hotkeys.js')],
  [['wait'], () => import('./wait.js')],
  [['ask'], () => import('./ask.js')],
  [['deliver'], () => import('./deliver.js')],
  [['history'], () => import('./history.js')],
  [['snapshot'], () => import('./snapshot.js')],
  [['replay'], () => import('./replay.js')],
  [['daemon'], () => import('./daemon.js')],
  [['doctor'], () => import('./doctor.js')],
  [['config'], () => import('./config.js')],
  [['completion'], () => import('./completion.js')],
  [['hosts'], () => import('./hosts.js')],
  [['web'], () => import('./web.js')],
  [['notify'], () => import('./notify.js')],
  [['acp'], () => import('./acp.js')],
  [['mcp'], () => import('./mcp.js')],
  [['map'], () => import('./map.js')],
  [['navigate'], () => import('./navigate.js')],
  [['report'], () => import('./report.js')],
  [['classify'], () => import('./classify.js')],
];

/** Every name a command answers to (its own and its aliases). */
export const COMMAND_NAMES: readonly string[] = TABLE.flatMap(([names]) => names);

/**
 * The commands yargs needs for this command line: only the named one when the first argument
 * names a command, all of them otherwise (`clippy --help`, a typo to suggest a fix for).
 */
export async function loadCommands(first?: string): Promise<AnyCommand[]> {
  const entry = first === undefined ? undefined : TABLE.find(([names]) => names.includes(first));
  const entries = entry ? [entry] : TABLE;
  return (await Promise.all(entries.map(([, load]) => load()))).map((m) => m.default);
}

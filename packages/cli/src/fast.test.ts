import yargs from 'yargs';
import { describe, expect, it } from 'vitest';
import { loadCommands } from './commands/index.js';
import { fastArgs } from './fast.js';

/** The arguments yargs (the full CLI) hands the command's handler, or null when it refuses. */
async function yargsArgs(argv: string[]): Promise<Record<string, unknown> | null> {
  const [cmd] = await loadCommands(argv[0]);
  let got: Record<string, unknown> | null = null;
  try {
    await yargs(argv)
      .command({ ...cmd!, handler: (a: Record<string, unknown>) => void (got = a) })
      .strict()
      .fail((msg, err) => {
        throw err ?? new Error(msg);
      })
      .parseAsync();
  } catch {
    return null;
  }
  return got;
}

/** What a handler reads: every key but yargs' own bookkeeping. */
function visible(args: object): Record<string, unknown> {
  return Object.fromEntries(Object.entries(args).filter(([k]) => k !== '$0' && k !== '_'));
}

/** Lines the fast path takes itself. */
const FAST_LINES = [
  ['ls'],
  ['list', '-a'],
  ['ls', '--json', '--all'],
  ['ls', '--socket', '/tmp/s.sock'],
  ['ls', '--socket=/tmp/s.sock', '--json'],
  ['send', 'claude', 'hello world', '--enter'],
  ['send', 'claude', '-', '-e'],
  ['send', 'claude', ''],
  ['send', 'claude', '--force', 'text', '--json'],
  ['show', 'claude:3'],
  ['show', 'claude:-1', '--raw'],
  ['show', 'claude', '--meta', '--json'],
  ['capture', 'claude:2', '-q'],
  ['capture', '--focused', '--notify'],
  ['paste', 'aider'],
  ['paste', 'aider', '--no-enter', '--raw', '-q'],
  ['relay', 'claude', 'aider', '--force'],
  ['relay', 'claude', 'aider', '--no-enter'],
  ['turns', 'claude'],
  ['turns', 'claude', '-n', '5', '--json'],
  ['turns', 'claude', '--limit=2'],
];

/** Lines left to yargs: help, mistakes, and forms the fast parser does not model. */
const YARGS_LINES = [
  [],
  ['--help'],
  ['ls', '--help'],
  ['ls', '-h'],
  ['--version'],
  ['ls', '--bogus'],
  ['ls', 'extra'],
  ['ls', '--json', 'false'],
  ['ls', '--socket'],
  ['send'],
  ['send', 'claude', '--keys', 'Down', 'Enter'],
  ['send', 'claude', 'a', 'b'],
  ['send', 'claude', '--', '--not-an-option'],
  ['show', 'claude:1', '--raw', '--text'],
  ['turns', 'claude', '-n', 'many'],
  ['turns', 'claude', '-n', '1', '-n', '2'],
  ['capture', '--via', 'tmux'],
  ['paste', 'aider', '--via', 'x11'],
  ['new', '--', 'bash'],
  ['attach', 'claude'],
];

describe('the fast path of the common commands', () => {
  it.each(FAST_LINES.map((l) => [l.join(' '), l]))(
    '`clippy %s` gives the handler what yargs gives it',
    async (_name, line) => {
      const fast = fastArgs(line);
      expect(fast, 'the fast path should take this line').not.toBeNull();
      const full = await yargsArgs(line);
      expect(full, 'yargs accepts this line').not.toBeNull();
      expect(visible(fast!.args)).toEqual(visible(full!));
    },
  );

  it.each(YARGS_LINES.map((l) => [l.join(' ') || '(nothing)', l]))(
    '`clippy %s` is left to yargs',
    (_name, line) => {
      expect(fastArgs(line)).toBeNull();
    },
  );
});

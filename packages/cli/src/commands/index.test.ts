import { describe, expect, it } from 'vitest';
import { COMMAND_NAMES, loadCommands } from './index.js';

function namesOf(cmd: {
  command?: string | readonly string[];
  aliases?: string | readonly string[];
}) {
  const command = ([] as string[]).concat(cmd.command ?? [])[0] ?? '';
  return [command.split(' ')[0]!, ...([] as string[]).concat(cmd.aliases ?? [])];
}

describe('the command table', () => {
  it('names exactly the names and aliases every command module declares', async () => {
    const all = await loadCommands();
    expect([...COMMAND_NAMES].sort()).toEqual(all.flatMap(namesOf).sort());
  });

  it('loads only the command that runs, by name or alias, and all of them otherwise', async () => {
    for (const name of COMMAND_NAMES) {
      const only = await loadCommands(name);
      expect(only).toHaveLength(1);
      expect(namesOf(only[0]!)).toContain(name);
    }
    expect(await loadCommands('no-such-command')).toHaveLength((await loadCommands()).length);
  });
});

import { BUILTIN_PRESETS } from '@clippy/turns';
import { describe, expect, it } from 'vitest';
import { silentLogger } from '../log.js';
import { loadTurnConfig } from '../detection/turn-config.js';
import { splitInterpreter } from './args.js';
import { wireSession } from './wire-session.js';

describe('splitInterpreter', () => {
  it('an agent run by node (or bun, deno) has its own arguments after the script and node’s options', () => {
    expect(splitInterpreter('/usr/bin/node', ['--no-warnings', 'cli.js', '-p', 'x'])).toEqual({
      lead: ['--no-warnings', 'cli.js'],
      own: ['-p', 'x'],
    });
    expect(splitInterpreter('bun', ['cli.js'])).toEqual({ lead: ['cli.js'], own: [] });
    // The agent's own command: every argument is its own.
    expect(splitInterpreter('claude', ['--model', 'x'])).toEqual({
      lead: [],
      own: ['--model', 'x'],
    });
    // node with no script (a REPL): nothing to wire after.
    expect(splitInterpreter('node', ['-i'])).toEqual({ lead: [], own: ['-i'] });
  });

  it('Claude Code run as `node cli.js` gets --settings after the script (node refuses it before)', () => {
    const wired = wireSession({
      preset: BUILTIN_PRESETS.claude!,
      presetName: 'claude',
      wanted: undefined,
      config: loadTurnConfig({ XDG_CONFIG_HOME: '/nonexistent' }),
      session: 's1',
      command: process.execPath,
      args: ['/opt/claude/cli.js', '--model', 'opus'],
      env: {},
      cwd: '/',
      socket: '/tmp/clippy.sock',
      log: silentLogger(),
    });
    expect(wired.args[0]).toBe('/opt/claude/cli.js');
    expect(wired.args[1]).toBe('--settings');
    expect(JSON.parse(wired.args[2]!).hooks.Stop).toHaveLength(1);
    expect(wired.args.slice(3)).toEqual(['--model', 'opus']);
    wired.channel?.dispose();
  });
});

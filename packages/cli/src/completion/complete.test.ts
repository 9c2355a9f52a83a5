import { beforeAll, describe, expect, it } from 'vitest';
import { presetNames } from '@clippy/turns';
import { loadCommands } from '../commands/index.js';
import { parseLine } from './complete.js';
import { buildSpec, type CompletionSpec } from './spec.js';

// What `clippy __complete` makes of a command line, on the spec read from the real commands'
// builders (as the build writes it). Sessions and turns themselves are tested end to end.

let spec: CompletionSpec;
beforeAll(async () => {
  spec = buildSpec(await loadCommands(), presetNames());
});

const want = (line: string[], cur = '') => parseLine(spec, line, cur).want;
const words = (line: string[], cur = '') => {
  const w = want(line, cur);
  return w.kind === 'words' ? w.words.map((c) => c.value) : w;
};

describe('__complete reads the command line', () => {
  it('offers commands, then subcommands, then each command’s own options', () => {
    expect(words([])).toEqual(expect.arrayContaining(['attach', 'ls', 'list', 'completion']));
    expect(words([])).not.toContain('__complete');
    expect(words(['daemon'])).toEqual([
      'start',
      'stop',
      'status',
      'restart',
      'install',
      'uninstall',
    ]);
    expect(words(['paste'], '--')).toEqual(
      expect.arrayContaining(['--raw', '--no-enter', '--force', '--focused', '--help']),
    );
    expect(words(['paste'], '--')).not.toContain('--observer');
    expect(words(['daemon', 'start'], '--')).toEqual(
      expect.arrayContaining(['--foreground', '--log-level']),
    );
  });

  it('knows which positional a word is, and what it names', () => {
    expect(want(['attach'])).toEqual({ kind: 'sessions', which: 'live' });
    expect(want(['rm'])).toEqual({ kind: 'sessions', which: 'exited' });
    expect(want(['turns'])).toEqual({ kind: 'sessions', which: 'any' });
    expect(want(['show'])).toEqual({ kind: 'ref' });
    expect(want(['relay'])).toEqual({ kind: 'ref' });
    expect(want(['relay', 'claude:3'])).toEqual({ kind: 'sessions', which: 'live' });
    expect(want(['relay', 'a', 'b'])).toEqual({ kind: 'none' });
    expect(want(['route', 'rm'])).toEqual({ kind: 'routes' });
    expect(want(['map'])).toEqual({ kind: 'files' });
    expect(words(['completion'])).toEqual(['bash', 'zsh', 'fish']);
  });

  it('completes an option’s value, and skips values already given', () => {
    expect(want(['new', '--preset'])).toEqual({ kind: 'presets' });
    expect(want(['wait', 'claude', '--after'])).toEqual({ kind: 'ref' });
    expect(want(['new', '--cwd'])).toEqual({ kind: 'files' });
    expect(words(['kill', 'x', '--signal'])).toEqual(expect.arrayContaining(['HUP', 'TERM']));
    expect(words(['hotkeys', '--feedback'])).toEqual(['auto', 'desktop', 'terminal']);
    expect(want(['replay', 'a', '--last', '3', '--into'])).toEqual({
      kind: 'sessions',
      which: 'live',
    });
    // `--socket PATH` took its value: the next word is the command’s positional again.
    expect(want(['send', '--socket', '/s'])).toEqual({ kind: 'sessions', which: 'live' });
    expect(want(['new', '--'])).toEqual({ kind: 'files' });
  });

  it('completes the value of a word `--option=VALUE`, keeping `--option=` before it', () => {
    expect(parseLine(spec, ['new'], '--preset=cl')).toEqual({
      want: { kind: 'presets' },
      valuePrefix: '--preset=',
    });
    expect(parseLine(spec, ['map'], '--plan=')).toMatchObject({
      want: { kind: 'files' },
      valuePrefix: '--plan=',
    });
    expect(parseLine(spec, ['hotkeys'], '--feedback=d')).toMatchObject({
      valuePrefix: '--feedback=',
    });
    // An option without a value, or an unknown one, has nothing to complete.
    expect(want(['paste'], '--raw=')).toEqual({ kind: 'none' });
    expect(want(['paste'], '--nosuch=')).toEqual({ kind: 'none' });
  });

  it('keeps --socket and --host for the daemon it asks', () => {
    expect(parseLine(spec, ['attach', '--socket', '/tmp/x.sock'], '')).toMatchObject({
      socket: '/tmp/x.sock',
    });
    expect(parseLine(spec, ['--host', 'build', 'attach'], '')).toMatchObject({
      host: 'build',
      want: { kind: 'sessions' },
    });
  });

  it('an unknown command completes nothing', () => {
    expect(want(['nosuch'])).toEqual({ kind: 'none' });
  });
});

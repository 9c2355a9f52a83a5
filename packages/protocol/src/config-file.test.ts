import { describe, expect, it } from 'vitest';
import {
  ConfigFileError,
  ConfigFileSchema,
  loadConfigFile,
  parseConfigText,
  settingLines,
} from './config-file.js';
import { configDir } from './paths.js';

const FILE = '/home/u/.config/clippy/config.json';

function error(text: string): ConfigFileError {
  try {
    parseConfigText(ConfigFileSchema, text, FILE);
  } catch (err) {
    if (err instanceof ConfigFileError) return err;
    throw err;
  }
  throw new Error(`no error for ${text}`);
}

describe('config files', () => {
  it('live in $XDG_CONFIG_HOME/clippy, else ~/.config/clippy', () => {
    expect(configDir({ XDG_CONFIG_HOME: '/x/' }, '/h')).toBe('/x/clippy');
    expect(configDir({ HOME: '/home/u' }, '/h')).toBe('/home/u/.config/clippy');
    expect(configDir({}, '/h')).toBe('/h/.config/clippy');
  });

  it('reads the keys of every part and lets unknown keys through', () => {
    const text = JSON.stringify({ turnRingDepth: 5, term: 'screen', detachKey: 'ctrl-q', x: 1 });
    expect(parseConfigText(ConfigFileSchema, text, FILE)).toEqual({
      turnRingDepth: 5,
      term: 'screen',
      detachKey: 'ctrl-q',
      x: 1,
    });
  });

  it('names the file and the line of a JSON syntax error', () => {
    for (const [text, line] of [
      ['{ not json', 1],
      ['{\n  "a": 1,\n}', 3],
      ['{\n  "a": 1\n  "b": 2\n}', 3],
      ['{\n  "a": tru\n}', 2],
      ['', 1],
      ['{\n  // a comment\n}', 2],
    ] as const) {
      const err = error(text);
      expect(err.message, text).toMatch(
        /^\/home\/u\/\.config\/clippy\/config\.json:\d+: not valid JSON \(.+\)$/,
      );
      expect([text, err.line]).toEqual([text, line]);
    }
  });

  it('names the file, the line and the key of a value the schema refuses', () => {
    const err = error('{\n  "detachKey": "ctrl-q",\n  "term": 256\n}');
    expect(err.message).toBe(`${FILE}:3: term: must be a string like "xterm-256color"`);
    expect(error('{"turnRingDepth": 0}').message).toMatch(/^.*config\.json:1: turnRingDepth: /);
    expect(error('[1]').message).toMatch(/config\.json:1: /);
  });

  it('loads through the caller’s read: absent is undefined, unreadable is an error', () => {
    const io = (files: Record<string, string>) => ({
      home: '/h',
      readFile(path: string): string {
        if (path in files) return files[path]!;
        throw Object.assign(new Error(`EACCES: permission denied, open '${path}'`), {
          code: path.endsWith('locked.json') ? 'EACCES' : 'ENOENT',
        });
      },
    });
    const env = { XDG_CONFIG_HOME: '/c' };
    expect(loadConfigFile('config.json', ConfigFileSchema, env, io({}))).toBeUndefined();
    expect(
      loadConfigFile(
        'config.json',
        ConfigFileSchema,
        env,
        io({ '/c/clippy/config.json': '{"term":"vt100"}' }),
      ),
    ).toEqual({ term: 'vt100' });
    expect(() => loadConfigFile('locked.json', ConfigFileSchema, env, io({}))).toThrow(
      /^\/c\/clippy\/locked\.json: EACCES/,
    );
  });
});

describe('settingLines', () => {
  it('gives the line of every key, nested ones by their dotted name', () => {
    const text =
      '{\n  "term": "screen",\n  "hotkeys": {\n    "capture": "super+c"\n  },\n  "hosts": { "build": "me@b" }\n}\n';
    expect([...settingLines(text)]).toEqual([
      ['term', 2],
      ['hotkeys', 3],
      ['hotkeys.capture', 4],
      ['hosts', 6],
      ['hosts.build', 6],
    ]);
  });

  it('is empty for a text that is not an object', () => {
    expect(settingLines('[1, 2]').size).toBe(0);
    expect(settingLines('').size).toBe(0);
  });
});

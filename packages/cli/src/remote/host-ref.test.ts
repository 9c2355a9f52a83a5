import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { hostAfterCommand } from '../run.js';
import { commandHost, splitHostRef } from './host-ref.js';

const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-hosts-'));
fs.mkdirSync(path.join(dir, 'clippy'));
fs.writeFileSync(
  path.join(dir, 'clippy', 'config.json'),
  JSON.stringify({ hosts: { build: 'me@build.example', laptop: 'local' } }),
);
const env = { XDG_CONFIG_HOME: dir, HOME: dir };
afterAll(() => fs.rmSync(dir, { recursive: true, force: true }));

describe('host references', () => {
  it('takes a configured host, local, or user@host as a prefix, and nothing else', () => {
    expect(splitHostRef('build:claude', env)).toEqual({
      host: { kind: 'ssh', name: 'build', destination: 'me@build.example' },
      ref: 'claude',
    });
    expect(splitHostRef('build:claude:3', env).ref).toBe('claude:3');
    expect(splitHostRef('laptop:aider', env)).toEqual({ host: { kind: 'local' }, ref: 'aider' });
    expect(splitHostRef('local:aider', env).host).toEqual({ kind: 'local' });
    expect(splitHostRef('ops@box:sh', env).host).toMatchObject({ destination: 'ops@box' });
    // A turn ID and a plain name stay what they were.
    expect(splitHostRef('claude:3', env)).toEqual({ host: null, ref: 'claude:3' });
    expect(splitHostRef('claude', env)).toEqual({ host: null, ref: 'claude' });
  });

  it('--host over $CLIPPY_HOST, a config name mapped to its destination, refusing options', () => {
    expect(commandHost(undefined, env)).toEqual({ kind: 'local' });
    expect(commandHost(undefined, { ...env, CLIPPY_HOST: 'build' })).toMatchObject({
      destination: 'me@build.example',
    });
    expect(commandHost('laptop', { ...env, CLIPPY_HOST: 'build' })).toEqual({ kind: 'local' });
    expect(() => commandHost('-oProxyCommand=x', env)).toThrow(/not an ssh destination/u);
  });

  it('moves a leading --host behind the command name', () => {
    expect(hostAfterCommand(['--host', 'b', 'ls', '-a'])).toEqual(['ls', '--host', 'b', '-a']);
    expect(hostAfterCommand(['--host=b', 'ls'])).toEqual(['ls', '--host=b']);
    expect(hostAfterCommand(['ls', '--host', 'b'])).toEqual(['ls', '--host', 'b']);
    expect(hostAfterCommand(['--host', 'b'])).toEqual(['--host', 'b']);
  });
});

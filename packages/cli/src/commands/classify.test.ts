import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { CliError } from '../errors.js';
import { classifyOutput, EXIT_BAD_PRESET, loadUserPresets } from './classify.js';

const enc = new TextEncoder();
const rule = '─'.repeat(40);
const CLAUDE_BUSY = ['❯ hi', '', '✶ Pondering… (esc to interrupt)', '', rule, '❯ ', rule].join(
  '\n',
);
const CLAUDE_IDLE = ['❯ hi', '', '⏺ Hello!', '', rule, '❯ ', rule, '  ? for shortcuts'].join('\n');

describe('clippy classify', () => {
  const dirs: string[] = [];
  const savedXdg = process.env.XDG_CONFIG_HOME;
  afterEach(() => {
    for (const d of dirs.splice(0)) fs.rmSync(d, { recursive: true, force: true });
    if (savedXdg === undefined) delete process.env.XDG_CONFIG_HOME;
    else process.env.XDG_CONFIG_HOME = savedXdg;
  });

  it('prints the state, and with --explain the reason, marker and line', () => {
    expect(classifyOutput(enc.encode(CLAUDE_IDLE), { preset: 'claude' }, {})).toBe('idle\n');
    const explained = classifyOutput(
      enc.encode(`\x1b[1m${CLAUDE_BUSY}\x1b[0m`),
      { preset: 'claude', explain: true },
      {},
    );
    expect(explained.split('\n').slice(0, 2)).toEqual(['busy', 'preset: claude (screen)']);
    expect(explained).toMatch(/\nmarker: .+\nline: 3\n$/u);
  });

  it('prints JSON with --json and classifies with a custom --pattern', () => {
    const json = JSON.parse(
      classifyOutput(enc.encode('out\nλ> '), { pattern: '^λ> $', json: true }, {}),
    );
    expect(json).toMatchObject({ state: 'idle', preset: 'custom', line: 2, marker: '^λ> $' });
  });

  it('rejects an unknown preset with the list of presets, exit code 2', () => {
    let err: unknown;
    try {
      classifyOutput(enc.encode(''), { preset: 'nope' }, {});
    } catch (e) {
      err = e;
    }
    expect(err).toBeInstanceOf(CliError);
    expect((err as CliError).exitCode).toBe(EXIT_BAD_PRESET);
    expect((err as Error).message).toMatch(
      /unknown preset "nope"; known presets: aider, bash, claude/u,
    );
  });

  it("reads the user's presets.json, and reports a broken one", () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-'));
    dirs.push(dir);
    process.env.XDG_CONFIG_HOME = dir;
    fs.mkdirSync(path.join(dir, 'clippy'));
    const file = path.join(dir, 'clippy', 'presets.json');
    fs.writeFileSync(file, JSON.stringify({ lam: { kind: 'line', pattern: '^λ> $' } }));
    expect(classifyOutput(enc.encode('λ> '), { preset: 'lam' }, loadUserPresets())).toBe('idle\n');
    fs.writeFileSync(file, JSON.stringify({ lam: { kind: 'line', patern: 'x' } }));
    expect(() => loadUserPresets()).toThrow(/presets\.json/u);
  });

  it('runs as a real process: state on stdout, exit 0; bad preset exit 2', () => {
    const main = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', 'main.ts');
    const run = (args: string[], input: string) =>
      spawnSync(
        process.execPath,
        ['--conditions=source', '--import', 'tsx', main, 'classify', ...args],
        {
          input,
          encoding: 'utf8',
          env: { ...process.env, XDG_CONFIG_HOME: os.tmpdir() + '/clippy-none' },
          timeout: 20_000,
        },
      );
    const ok = run(['--preset', 'claude'], CLAUDE_BUSY);
    expect([ok.status, ok.stdout]).toEqual([0, 'busy\n']);
    const bad = run(['--preset', 'nope'], '');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toMatch(/unknown preset "nope"/u);
  });
});

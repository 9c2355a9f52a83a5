import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { findExecutable } from '@clippy/system/clipboard';
import { copyToClipboard } from './clipboard.js';
import { HandlerError } from '../errors.js';
import { deliverToFile } from './file-delivery.js';
import { longestLine } from './injector.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'clippy-'));
});
afterEach(() => {
  rmSync(dir, { recursive: true, force: true });
});

/** A stand-in clipboard tool: a real executable that stores its stdin (and args) in files. */
function fakeTool(name: string, exitCode = 0): string {
  const bin = join(dir, 'bin');
  mkdirSync(bin, { recursive: true });
  const path = join(bin, name);
  writeFileSync(
    path,
    `#!/bin/sh\necho "$@" > "${dir}/${name}.args"\n/bin/cat > "${dir}/${name}.out"\n${exitCode ? `echo "cannot open display" >&2\nexit ${exitCode}` : 'exit 0'}\n`,
  );
  chmodSync(path, 0o755);
  return bin;
}

describe('clipboard sink', () => {
  it('uses xclip when X11 is there, with the clipboard selection and the exact bytes', async () => {
    const bin = fakeTool('xclip');
    const data = Buffer.from('line one\nline two ✓\n');
    const provider = await copyToClipboard(data, { env: { PATH: bin, DISPLAY: ':0' } });
    expect(provider).toBe('xclip');
    expect(readFileSync(join(dir, 'xclip.out')).equals(data)).toBe(true);
    expect(readFileSync(join(dir, 'xclip.args'), 'utf8').trim()).toBe('-selection clipboard');
  });

  it('prefers wl-copy on Wayland and falls through a failing tool to the next', async () => {
    fakeTool('wl-copy', 1);
    const bin = fakeTool('xsel');
    const provider = await copyToClipboard(Buffer.from('x'), {
      env: { PATH: bin, WAYLAND_DISPLAY: 'wayland-0', DISPLAY: ':0' },
    });
    expect(provider).toBe('xsel');
    expect(readFileSync(join(dir, 'wl-copy.out'), 'utf8')).toBe('x');
  });

  it('falls back to OSC 52 through an attached client', async () => {
    const seen: string[] = [];
    const provider = await copyToClipboard(Buffer.from('hi'), {
      env: { PATH: join(dir, 'none') },
      osc52: (seq) => {
        seen.push(Buffer.from(seq).toString());
        return true;
      },
    });
    expect(provider).toBe('osc52');
    expect(seen).toEqual([`\x1b]52;c;${Buffer.from('hi').toString('base64')}\x07`]);
  });

  it('fails with clipboard_failed naming what was tried when nothing works', async () => {
    const bin = fakeTool('xclip', 1);
    const err = await copyToClipboard(Buffer.from('x'), {
      env: { PATH: bin, DISPLAY: ':0' },
      osc52: () => false,
    }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HandlerError);
    expect((err as HandlerError).code).toBe('clipboard_failed');
    expect((err as HandlerError).message).toMatch(/xclip exited with code 1: cannot open display/);
    expect((err as HandlerError).message).toMatch(/osc52: no client/);
    const none = await copyToClipboard(Buffer.from('x'), { env: { PATH: '' } }).catch(
      (e: unknown) => e,
    );
    expect((none as HandlerError).code).toBe('clipboard_failed');
    expect((none as HandlerError).message).toMatch(/wl-copy.*xclip.*pbcopy.*clip\.exe/);
  });

  it('finds executables on PATH only', () => {
    const bin = fakeTool('xsel');
    writeFileSync(join(bin, 'notexec'), 'x');
    expect(findExecutable('xsel', `/nonexistent:${bin}`)).toBe(join(bin, 'xsel'));
    expect(findExecutable('notexec', bin)).toBeNull();
  });
});

describe('file sink', () => {
  it('overwrites the path with the exact bytes', async () => {
    const path = join(dir, 'out.txt');
    writeFileSync(path, 'old content that is longer');
    const data = Buffer.from([0x1b, 0x5b, 0x31, 0x6d, 0xff, 0x0a]);
    await deliverToFile(path, data);
    expect(readFileSync(path).equals(data)).toBe(true);
  });

  it('fails with file_write_failed and leaves no temporary file', async () => {
    const err = await deliverToFile(join(dir, 'missing', 'out.txt'), Buffer.from('x')).catch(
      (e: unknown) => e,
    );
    expect((err as HandlerError).code).toBe('file_write_failed');
    expect((err as HandlerError).message).toMatch(/missing\/out\.txt/);
  });
});

describe('longestLine', () => {
  it('measures the longest CR- or LF-separated line in bytes', () => {
    expect(longestLine(Buffer.from(''))).toBe(0);
    expect(longestLine(Buffer.from('abc\r\nde'))).toBe(3);
    expect(longestLine(Buffer.from(`x\n${'é'.repeat(10)}\n`))).toBe(20);
  });
});

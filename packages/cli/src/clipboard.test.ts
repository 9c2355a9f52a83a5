import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { copyToClipboard, detectClipboard } from './clipboard.js';

let bin: string;
beforeEach(() => {
  bin = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-clip-'));
});
afterEach(() => fs.rmSync(bin, { recursive: true, force: true }));

function fake(name: string, body = '/bin/cat > /dev/null'): void {
  fs.writeFileSync(path.join(bin, name), `#!/bin/sh\n${body}\n`, { mode: 0o755 });
}

describe('clipboard detection', () => {
  it('picks the first available provider in order, honouring display variables', () => {
    fake('wl-copy');
    fake('xclip');
    fake('pbcopy');
    const env = { PATH: bin };
    expect(
      detectClipboard({ env: { ...env, WAYLAND_DISPLAY: 'wayland-0' }, isTTY: false })?.name,
    ).toBe('wl-copy');
    expect(detectClipboard({ env: { ...env, DISPLAY: ':0' }, isTTY: false })?.name).toBe('xclip');
    // pbcopy is macOS's: found on PATH elsewhere, it is not taken.
    expect(detectClipboard({ env, isTTY: false })?.name).toBe(
      process.platform === 'darwin' ? 'pbcopy' : undefined,
    );
    fs.rmSync(path.join(bin, 'pbcopy'));
    expect(detectClipboard({ env, isTTY: true })?.name).toBe('osc52');
    expect(detectClipboard({ env, isTTY: false })).toBeNull();
  });

  it('pipes the text to the provider, writes OSC 52 to a terminal, and fails clearly', async () => {
    const sink = path.join(bin, 'got.txt');
    fake('xsel', `/bin/cat > ${JSON.stringify(sink)}`);
    const via = await copyToClipboard('hello map', {
      env: { PATH: bin, DISPLAY: ':0' },
      isTTY: false,
    });
    expect(via.name).toBe('xsel');
    expect(fs.readFileSync(sink, 'utf8')).toBe('hello map');
    const terminal = new PassThrough();
    let written = '';
    terminal.on('data', (d: Buffer) => (written += d.toString()));
    await copyToClipboard('hi', { env: { PATH: '' }, isTTY: true, terminal });
    expect(written).toBe(`\x1b]52;c;${Buffer.from('hi').toString('base64')}\x07`);
    await expect(copyToClipboard('x', { env: { PATH: '' }, isTTY: false })).rejects.toThrow(
      /no clipboard available/,
    );
    fake('xsel', 'exit 3');
    await expect(
      copyToClipboard('x', { env: { PATH: bin, DISPLAY: ':0' }, isTTY: false }),
    ).rejects.toThrow(/xsel exited with code 3/);
  });
});

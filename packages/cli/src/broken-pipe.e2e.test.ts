import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';

/** dist's build of broken-pipe.ts: what the bundled CLI runs. */
const MODULE = fileURLToPath(new URL('../dist/broken-pipe.js', import.meta.url));

/** A writer of far more than a pipe holds, read until its first line and then cut off. */
function cutOff(install: boolean): Promise<{ code: number | null; stderr: string; first: string }> {
  const script = `
    ${install ? `(await import(${JSON.stringify(MODULE)})).endQuietlyOnBrokenPipe();` : ''}
    const line = 'x'.repeat(1023) + '\\n';
    const write = () => { while (process.stdout.write(line)); process.stdout.once('drain', write); };
    write();`;
  const child = spawn(process.execPath, ['--input-type=module', '-e', script], {
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  return new Promise((resolve) => {
    let first = '';
    child.stdout.once('data', (d: Buffer) => {
      first = d.toString().split('\n')[0]!;
      child.stdout.destroy(); // `| head -1`: the reader goes
    });
    child.once('close', (code) => resolve({ code, stderr, first }));
  });
}

describe('clippy … | head', () => {
  it('ends quietly with success when the reader closes the pipe', async () => {
    const r = await cutOff(true);
    expect(r.first).toBe('x'.repeat(1023));
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
  });

  it('(without it node prints a stack trace and fails: what the handler is for)', async () => {
    const r = await cutOff(false);
    expect(r.stderr).toContain('EPIPE');
    expect(r.code).not.toBe(0);
  });
});

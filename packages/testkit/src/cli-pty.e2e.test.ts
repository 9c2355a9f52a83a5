import { describe, expect, it } from 'vitest';
import { CliPty } from './cli-pty.js';

describe('CliPty', () => {
  it("keeps a program's last output when the test process reads late", async () => {
    // A loaded test process reads late: here its event loop is held 150 ms at a time (a
    // sleep, not a spin) while the program writes and exits. node-pty alone closed the PTY
    // 200 ms after the exit and the rest of the output was lost.
    const p = CliPty.shell('seq 1 5000; echo LAST-LINE', { env: { PATH: process.env.PATH } });
    const slow = new Int32Array(new SharedArrayBuffer(4));
    const busy = setInterval(() => Atomics.wait(slow, 0, 0, 150), 1);
    try {
      expect(await p.waitExit()).toBe(0);
    } finally {
      clearInterval(busy);
      await p.dispose();
    }
    expect(p.text).toContain('4999\r\n5000\r\nLAST-LINE');
  });
});

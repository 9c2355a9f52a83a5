/**
 * One connection's burst never locks the others out (issue 46, item 4: `hello` and 1,000
 * `spawn` frames in one write; from 11 s to 52 s every `clippy ls` failed with "the broker did
 * not answer 'hello' within 5000 ms", and the burst got 831 answers before a frame_timeout
 * closed it). The real daemon and the real CLI: `clippy ls` runs every second while the burst
 * is worked through, and every request of the burst is answered.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FrameDecoder, PROTOCOL_VERSION, encodeFrame } from '@clippy/protocol';
import { runClippy } from '@clippy/testkit/cli-pty';
import { TestDaemon } from '@clippy/testkit/daemon';

/** Spawns in the burst: each forks a process, tens of milliseconds on a loaded machine. */
const BURST = 300;
/**
 * Bytes each spawn frame is padded to: the one write then spans many reads of the socket, each
 * ending inside a frame (whose time must not run while the daemon works through the rest).
 */
const FRAME_PAD = 1_000;
/** Between two `clippy ls`: the probe ran one a second. */
const LS_EVERY_MS = 1_000;
/** The burst on a loaded 2-core machine, with room. */
const TEST_TIMEOUT_MS = 400_000;

let d: TestDaemon;

beforeAll(async () => {
  d = await TestDaemon.start();
});
afterAll(async () => {
  await d?.stop();
}, 120_000);

describe('a burst of spawns on one connection', () => {
  it(
    'leaves clippy ls working throughout, and every spawn it sent is answered',
    async () => {
      const frames = [
        encodeFrame({ type: 'hello', id: 0, version: PROTOCOL_VERSION, role: 'client' }),
      ];
      for (let i = 1; i <= BURST; i++)
        frames.push(
          encodeFrame({
            type: 'spawn',
            id: i,
            command: 'sleep',
            args: ['600'],
            name: `burst-${i}`,
            env: { PATH: process.env.PATH ?? '/usr/bin:/bin', PAD: 'x'.repeat(FRAME_PAD) },
          }),
        );
      const socket = connect(d.socket);
      const decoder = new FrameDecoder();
      const answers = new Map<number, string>();
      let closed = false;
      socket.on('data', (b: Buffer) => {
        for (const m of decoder.push(b) as {
          type: string;
          id: number;
          status?: string;
          error?: string;
        }[])
          if (m.type === 'response') answers.set(m.id, m.status === 'ok' ? 'ok' : String(m.error));
      });
      socket.on('error', () => {});
      socket.on('close', () => (closed = true));
      await new Promise<void>((r) => socket.once('connect', r));
      socket.write(Buffer.concat(frames));

      const failures: string[] = [];
      let looks = 0;
      while (answers.size < BURST && !closed) {
        const ls = await runClippy(['ls'], d.env.env);
        looks++;
        if (ls.code !== 0) failures.push(`ls ${looks}: ${ls.stderr.trim()}`);
        await new Promise((r) => setTimeout(r, LS_EVERY_MS));
      }
      socket.destroy();
      expect(failures).toEqual([]);
      expect(looks).toBeGreaterThan(0);
      expect(closed).toBe(false);
      expect(answers.size).toBe(BURST);
      expect([...answers.values()].filter((a) => a !== 'ok')).toEqual([]);
    },
    TEST_TIMEOUT_MS,
  );
});

import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { AgentChannel } from './types.js';
import { WiredChannel } from './wired-channel.js';

describe('a wired channel', () => {
  it("has only the agent's own ways of reading, and removes the wiring's files when it goes", () => {
    const dir = mkdtempSync(join(tmpdir(), 'clippy-wired-'));
    try {
      const file = join(dir, 'qwen-s.json');
      writeFileSync(file, '{}');
      const inner: AgentChannel = {
        agent: 'qwen',
        agentSession: 'S',
        onEvent: () => Promise.resolve({ kind: 'ignored', why: 'x' }),
        expectsReport: () => true,
        dispose: () => undefined,
      };
      const ch = new WiredChannel(inner, [file]);
      expect(ch.agentSession).toBe('S');
      expect(ch.readTurn).toBeUndefined();
      expect(ch.recorded).toBeUndefined();
      ch.dispose();
      expect(existsSync(file)).toBe(false);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});

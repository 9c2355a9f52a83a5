import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModel, type FakeModel } from './fake-model/server.js';
import { AGENT_PINS, REAL_AGENTS, agentsMissing, findAgent, prepareAgent } from './real-agents.js';

describe('real agent environments', () => {
  it('names the install command when an agent is not installed', () => {
    const empty = mkdtempSync(join(os.tmpdir(), 'clippy-agents-'));
    try {
      const found = findAgent('codex', { CLIPPY_TEST_AGENTS: empty });
      expect(found).toEqual({
        missing: expect.stringContaining(
          `npm install --prefix ${empty} @openai/codex@${AGENT_PINS.codex.version}`,
        ),
      });
    } finally {
      rmSync(empty, { recursive: true });
    }
  });

  describe('with the installed agents', () => {
    let model: FakeModel;
    beforeAll(async () => {
      model = await startFakeModel();
    });
    afterAll(() => model.close());

    for (const agent of REAL_AGENTS) {
      it.skipIf(agentsMissing(agent) !== null)(
        `${agent}: a temp HOME with its first-run state, pointed at the fake model, never the user's`,
        () => {
          const s = prepareAgent(
            agent,
            { ...model },
            {
              env: {
                HOME: '/home/someone',
                ANTHROPIC_API_KEY: 'real',
                OPENAI_API_KEY: 'real',
                GEMINI_API_KEY: 'real',
                DISPLAY: ':0',
              },
            },
          );
          try {
            expect(s.env.HOME).toBe(s.home);
            expect(s.home.startsWith(os.tmpdir())).toBe(true);
            expect(s.env.DISPLAY).toBeUndefined();
            expect(Object.values(s.env)).not.toContain('real');
            const seeded =
              agent === 'claude'
                ? join(s.home, '.claude.json')
                : agent === 'codex'
                  ? join(s.env.CODEX_HOME!, 'config.toml')
                  : join(s.home, '.gemini', 'settings.json');
            expect(readFileSync(seeded, 'utf8')).toContain(
              agent === 'claude' ? s.cwd : agent === 'codex' ? model.url : 'gemini-api-key',
            );
          } finally {
            s.dispose();
          }
          expect(existsSync(s.home)).toBe(false);
        },
      );
    }
  });
});

import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startFakeModel, type FakeModel } from './fake-model/server.js';
import {
  AGENT_PINS,
  agentsMissing,
  findAgent,
  prepareAgent,
  type RealAgentName,
} from './real-agents.js';

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

    for (const agent of Object.keys(AGENT_PINS) as RealAgentName[]) {
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
            const seeds: Record<RealAgentName, () => [string, string]> = {
              claude: () => [join(s.home, '.claude.json'), s.cwd],
              codex: () => [join(s.env.CODEX_HOME!, 'config.toml'), model.url],
              gemini: () => [join(s.home, '.gemini', 'settings.json'), 'gemini-api-key'],
              qwen: () => [join(s.home, '.qwen', 'settings.json'), '"selectedType": "openai"'],
              opencode: () => [
                join(s.env.XDG_CONFIG_HOME!, 'opencode', 'opencode.json'),
                model.url,
              ],
              copilot: () => [join(s.home, '.copilot', 'config.json'), s.cwd],
            };
            const [seeded, holds] = seeds[agent]();
            expect(readFileSync(seeded, 'utf8')).toContain(holds);
            // Every folder of its own is the temp HOME's.
            for (const v of ['XDG_CONFIG_HOME', 'XDG_DATA_HOME', 'CODEX_HOME', 'COPILOT_HOME'])
              if (s.env[v] !== undefined) expect(s.env[v]!.startsWith(s.home)).toBe(true);
          } finally {
            s.dispose();
          }
          expect(existsSync(s.home)).toBe(false);
        },
      );
    }
  });
});

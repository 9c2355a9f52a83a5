// `clippy mcp config AGENT` prints one command per agent; run by the agent's real installed CLI
// (in a temp HOME, never the user's), it registers exactly `clippy mcp` with the options given.
// What each agent wrote is read back from its own configuration file. The agents are the ones
// installed for the real-agent tests; each is skipped, saying so, where it is not installed.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import os from 'node:os';
import { join } from 'node:path';
import { agentsDir } from '@clippy/testkit/real-agents';
import { bins } from '@clippy/testkit/paths';
import { describe, expect, it } from 'vitest';
import { unavailable } from '@clippy/testkit/requirements';

/** A CLI's start (Copilot CLI unpacks itself first) on a loaded 2-core machine. */
const AGENT_CLI_MS = 120_000;

/** What `clippy mcp` is registered with in every case. */
const SERVER_ARGS = ['mcp', '--read-only', '--sessions', 'review,build'];

interface Registered {
  command: string;
  args: string[];
}

/**
 * Where each agent keeps its user-level MCP servers, and what `clippy` reads there. Claude
 * Code's and Codex's commands are run by mcp-real-agents.e2e.test.ts, which then uses them.
 */
const READ_BACK: Record<string, (home: string) => Registered> = {
  gemini: (home) => json(join(home, '.gemini', 'settings.json')).mcpServers.clippy,
  qwen: (home) => json(join(home, '.qwen', 'settings.json')).mcpServers.clippy,
  opencode: (home) => {
    const [command, ...args] = json(join(home, '.config', 'opencode', 'opencode.jsonc')).mcp.clippy
      .command as string[];
    return { command: command!, args };
  },
  copilot: (home) => json(join(home, '.copilot', 'mcp-config.json')).mcpServers.clippy,
};

// eslint-disable-next-line @typescript-eslint/no-explicit-any
const json = (file: string): any => JSON.parse(readFileSync(file, 'utf8'));

const bin = (agent: string) => join(agentsDir(), 'node_modules', '.bin', agent);

describe('clippy mcp config AGENT', () => {
  for (const agent of Object.keys(READ_BACK)) {
    const missing = unavailable(
      existsSync(bin(agent)) ? null : `${agent} is not installed in ${agentsDir()}`,
    );
    it.skipIf(missing !== null)(
      `prints the one command with which ${agent} registers clippy mcp`,
      () => {
        const home = mkdtempSync(join(os.tmpdir(), `clippy-mcp-${agent}-`));
        try {
          const project = join(home, 'project');
          mkdirSync(project);
          const env: NodeJS.ProcessEnv = {
            ...process.env,
            HOME: home,
            XDG_CONFIG_HOME: join(home, '.config'),
            XDG_DATA_HOME: join(home, '.local', 'share'),
            XDG_STATE_HOME: join(home, '.local', 'state'),
            XDG_CACHE_HOME: join(home, '.cache'),
            XDG_RUNTIME_DIR: join(home, 'run'),
            PATH: `${join(agentsDir(), 'node_modules', '.bin')}:${process.env.PATH}`,
          };
          delete env.CLIPPY_SOCKET;
          const line = execFileSync(
            process.execPath,
            [bins.clippy, 'mcp', 'config', agent, ...SERVER_ARGS.slice(1)],
            { env, encoding: 'utf8' },
          );
          expect(line.trim().split('\n')).toHaveLength(1);
          expect(line.startsWith(`${agent} mcp add `)).toBe(true);
          execFileSync('sh', ['-c', line], { env, cwd: project, stdio: 'pipe' });
          const got = READ_BACK[agent]!(home);
          expect(got.command).toBe('clippy');
          expect(got.args).toEqual(SERVER_ARGS);
        } finally {
          rmSync(home, { recursive: true, force: true });
        }
      },
      AGENT_CLI_MS,
    );
  }

  it('prints every agent’s command without AGENT, and refuses one it does not know', () => {
    const all = execFileSync(process.execPath, [bins.clippy, 'mcp', 'config'], {
      encoding: 'utf8',
    });
    for (const agent of ['claude', 'codex', ...Object.keys(READ_BACK)])
      expect(all).toContain(`${agent} mcp add `);
    let failure: { status: number; stderr: string } | undefined;
    try {
      execFileSync(process.execPath, [bins.clippy, 'mcp', 'config', 'emacs'], { stdio: 'pipe' });
    } catch (err) {
      failure = err as { status: number; stderr: string };
    }
    expect(failure?.status).toBe(64);
    expect(String(failure?.stderr)).toContain(
      "unknown agent 'emacs': clippy knows claude, codex, gemini, qwen, opencode, copilot",
    );
  });
});

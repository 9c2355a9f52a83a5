import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import os from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DESKTOP_VARS, OUTSIDE_SERVICE_VARS, envWithout } from './env.js';
import { unavailable } from './requirements.js';
import type { FakeModel, ModelApi, ModelRequest, ToolCallAnswer } from './fake-model/server.js';

/**
 * The real agent CLIs under test (Claude Code, Codex, Gemini CLI, Qwen Code, OpenCode, Copilot
 * CLI), installed at pinned versions outside node_modules (a user's `npm ci` never pulls them; `.ci/run` installs them), and the
 * environment each needs to start offline and quiet against the fake model server: a temp HOME
 * (CODEX_HOME) per agent with its first-run state, trust and API-key answers pre-seeded, no
 * update checks, no telemetry. Never the user's own HOME.
 */

export type RealAgentName = 'claude' | 'codex' | 'gemini' | 'qwen' | 'opencode' | 'copilot';
/**
 * The three first agents, which the life-cycle tests (real-agents-life) and the agents benches
 * run side by side. The agent-channel and ACP suites run per agent, one test file each
 * (`agent-channels-AGENT`, `real-agents-qwen…`, `acp-real-agents-AGENT`), for all six.
 */
export const REAL_AGENTS: readonly RealAgentName[] = ['claude', 'codex', 'gemini'];

interface Pin {
  package: string;
  version: string;
  bin: string;
}

/** The pinned versions (`packages/testkit/agents.json`, read by `.ci/run` too). */
export const AGENT_PINS: Record<RealAgentName, Pin> = JSON.parse(
  readFileSync(resolve(dirname(fileURLToPath(import.meta.url)), '..', 'agents.json'), 'utf8'),
) as Record<RealAgentName, Pin>;

/** Where the CLIs are installed: `npm install --prefix "$CLIPPY_TEST_AGENTS" …`. */
export const AGENTS_DIR_VAR = 'CLIPPY_TEST_AGENTS';

export function agentsDir(env: NodeJS.ProcessEnv = process.env): string {
  return (
    env[AGENTS_DIR_VAR] ||
    join(env.XDG_CACHE_HOME || join(os.homedir(), '.cache'), 'clippy', 'test-agents')
  );
}

/** The model API each agent talks to. */
export const AGENT_API: Record<RealAgentName, ModelApi> = {
  claude: 'anthropic',
  codex: 'openai',
  gemini: 'gemini',
  qwen: 'openai-chat',
  opencode: 'openai-chat',
  copilot: 'openai-chat',
};

/** The clippy preset of each agent. */
export const AGENT_PRESET: Record<RealAgentName, string> = {
  claude: 'claude',
  codex: 'codex',
  gemini: 'gemini',
  qwen: 'qwen',
  opencode: 'opencode',
  copilot: 'copilot',
};

/** The agent's installed executable, or why it cannot be used (tests skip with this message). */
export function findAgent(
  agent: RealAgentName,
  env: NodeJS.ProcessEnv = process.env,
): { bin: string } | { missing: string } {
  const pin = AGENT_PINS[agent];
  const dir = agentsDir(env);
  const pkg = join(dir, 'node_modules', ...pin.package.split('/'), 'package.json');
  const bin = join(dir, 'node_modules', '.bin', pin.bin);
  const install = `npm install --prefix ${dir} ${pin.package}@${pin.version}`;
  if (!existsSync(pkg) || !existsSync(bin))
    return { missing: `${pin.package} is not installed in ${dir} (${install})` };
  const version = (JSON.parse(readFileSync(pkg, 'utf8')) as { version?: string }).version;
  if (version !== pin.version)
    return {
      missing: `${pin.package} ${version} in ${dir} is not the pinned ${pin.version} (${install})`,
    };
  return { bin };
}

/** Why a test of `agents` skips here, or null when all are installed (in CI: throws). */
export function agentsMissing(...agents: RealAgentName[]): string | null {
  for (const a of agents) {
    const found = findAgent(a);
    if ('missing' in found) return unavailable(found.missing);
  }
  return null;
}

/** A prepared agent: what to spawn, with what environment, and what its model received. */
export interface AgentSetup {
  agent: RealAgentName;
  preset: string;
  api: ModelApi;
  command: string;
  args: string[];
  /** The agent's whole environment (give it to `spawn` as is). */
  env: Record<string, string>;
  /** The temp HOME holding the agent's own state (CODEX_HOME is `${home}/.codex`). */
  home: string;
  /** The project directory it runs in (trusted in its pre-seeded state). */
  cwd: string;
  /** The fake model's log of this agent's requests. */
  requests(): ModelRequest[];
  /** Its conversation requests (what the user typed reaches the model here). */
  conversation(): ModelRequest[];
  /** Removes the temp HOME and project directory. */
  dispose(): void;
}

export interface PrepareOptions {
  /** Where to make the agent's temp dirs (default the OS temp dir). */
  root?: string;
  /** Extra arguments for the agent. */
  args?: string[];
  /** Base environment (default: this process's, without the user's desktop and services). */
  env?: NodeJS.ProcessEnv;
}

/** A fake API key: the agents want one in the right shape; the fake model takes any. */
const FAKE_KEYS = {
  anthropic: 'sk-ant-api03-fake-clippy-test-key-0000000000000000000000000000000000',
  openai: 'sk-fake-clippy-test-key-000000000000000000000000000000',
  gemini: 'AIzaFakeClippyTestKey000000000000000000000',
};

/** Variables that point an agent at a real service, or at the user's own config. */
const AGENT_VARS = [
  'ANTHROPIC_API_KEY',
  'ANTHROPIC_AUTH_TOKEN',
  'ANTHROPIC_BASE_URL',
  'ANTHROPIC_MODEL',
  'CLAUDE_CONFIG_DIR',
  'OPENAI_API_KEY',
  'OPENAI_BASE_URL',
  'CODEX_HOME',
  'GOOGLE_GEMINI_BASE_URL',
  'GOOGLE_CLOUD_PROJECT',
  'GOOGLE_APPLICATION_CREDENTIALS',
  'GOOGLE_GENAI_USE_VERTEXAI',
  'GEMINI_MODEL',
  'OPENAI_MODEL',
  'QWEN_HOME',
  'QWEN_CODE_SYSTEM_SETTINGS_PATH',
  'QWEN_CODE_SYSTEM_DEFAULTS_PATH',
  'DASHSCOPE_API_KEY',
  'OPENCODE_CONFIG',
  'OPENCODE_CONFIG_DIR',
  'OPENCODE_CONFIG_CONTENT',
  'COPILOT_HOME',
  'COPILOT_GITHUB_TOKEN',
  'GH_TOKEN',
  'GITHUB_TOKEN',
  'COPILOT_PROVIDER_BASE_URL',
  'COPILOT_PROVIDER_API_KEY',
  'COPILOT_MODEL',
  'XDG_CONFIG_HOME',
  'XDG_DATA_HOME',
  'XDG_CACHE_HOME',
  'XDG_STATE_HOME',
];

/**
 * Prepares one agent to run against `model`: a temp HOME with its first-run state pre-seeded
 * (onboarding done, the project trusted, the API key accepted, no update checks, no
 * telemetry), a temp project directory, and the command and environment to run it with.
 * Throws (with the install command) when the agent is not installed.
 */
export function prepareAgent(
  agent: RealAgentName,
  model: FakeModel,
  opts: PrepareOptions = {},
): AgentSetup {
  const found = findAgent(agent);
  if ('missing' in found) throw new Error(found.missing);
  const base = mkdtempSync(join(opts.root ?? os.tmpdir(), `clippy-${agent}-`));
  const home = join(base, 'home');
  const cwd = join(base, 'project');
  const tmp = join(base, 'tmp');
  mkdirSync(home);
  mkdirSync(cwd);
  mkdirSync(tmp);
  const env: Record<string, string> = {
    ...envWithout(opts.env ?? process.env, DESKTOP_VARS, OUTSIDE_SERVICE_VARS, AGENT_VARS),
    HOME: home,
    // The agent's own temp files (Qwen Code's `qwen-socks-*`, left when it is killed) go with it.
    TMPDIR: tmp,
    TERM: 'xterm-256color',
    LANG: 'C.UTF-8',
    // Agents read these to decide on colours and links; fixed so screens are the same everywhere.
    COLORTERM: 'truecolor',
    NO_UPDATE_NOTIFIER: '1',
  };
  delete env.CI; // some agents change their screens (no spinner, plain output) under CI
  const seeded = SEED[agent]({ home, cwd, model, env });
  const api = AGENT_API[agent];
  const mine = () => model.requests.filter((r) => r.api === api);
  return {
    agent,
    preset: AGENT_PRESET[agent],
    api,
    command: found.bin,
    args: [...seeded.args, ...(opts.args ?? [])],
    env,
    home,
    cwd,
    requests: mine,
    conversation: () => mine().filter((r) => r.conversation),
    dispose: () => rmSync(base, { recursive: true, force: true }),
  };
}

interface SeedContext {
  home: string;
  cwd: string;
  model: FakeModel;
  env: Record<string, string>;
}

const json = (path: string, value: unknown) => {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(value, null, 2)}\n`);
};

const SEED: Record<RealAgentName, (c: SeedContext) => { args: string[] }> = {
  claude: ({ home, cwd, model, env }) => {
    const key = FAKE_KEYS.anthropic;
    Object.assign(env, {
      ANTHROPIC_API_KEY: key,
      ANTHROPIC_BASE_URL: model.url,
      DISABLE_AUTOUPDATER: '1',
      DISABLE_TELEMETRY: '1',
      DISABLE_ERROR_REPORTING: '1',
      CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    });
    json(join(home, '.claude.json'), {
      numStartups: 1,
      hasCompletedOnboarding: true,
      lastOnboardingVersion: AGENT_PINS.claude.version,
      lastReleaseNotesSeen: AGENT_PINS.claude.version,
      autoUpdates: false,
      theme: 'dark',
      // The key is approved by its last 20 characters, as the "use this API key?" dialog records it.
      customApiKeyResponses: { approved: [key.slice(-20)], rejected: [] },
      projects: {
        [cwd]: {
          hasTrustDialogAccepted: true,
          hasCompletedProjectOnboarding: true,
          projectOnboardingSeenCount: 1,
          allowedTools: [],
        },
      },
    });
    json(join(home, '.claude', 'settings.json'), { autoUpdates: false });
    return { args: [] };
  },
  codex: ({ home, cwd, model, env }) => {
    const codexHome = join(home, '.codex');
    mkdirSync(codexHome);
    Object.assign(env, { CODEX_HOME: codexHome, FAKE_OPENAI_KEY: FAKE_KEYS.openai });
    writeFileSync(
      join(codexHome, 'config.toml'),
      [
        'model = "fake-model"',
        'model_provider = "fake"',
        'approval_policy = "on-request"',
        'sandbox_mode = "workspace-write"',
        'check_for_update_on_startup = false',
        '',
        '[model_providers.fake]',
        'name = "fake"',
        `base_url = "${model.url}/v1"`,
        'wire_api = "responses"',
        'env_key = "FAKE_OPENAI_KEY"',
        'request_max_retries = 0',
        'stream_max_retries = 0',
        '',
        `[projects."${cwd}"]`,
        'trust_level = "trusted"',
        '',
        '[analytics]',
        'enabled = false',
        '',
      ].join('\n'),
    );
    // Without it the TUI starts (or joins) a shared background app-server that outlives it,
    // keeps the first run's config and serves every later codex of the same user.
    return { args: ['--no-daemon'] };
  },
  gemini: ({ home, cwd, model, env }) => {
    Object.assign(env, {
      GEMINI_API_KEY: FAKE_KEYS.gemini,
      GOOGLE_GEMINI_BASE_URL: model.url,
      GEMINI_CLI_NO_RELAUNCH: 'true',
    });
    json(join(home, '.gemini', 'settings.json'), {
      security: { auth: { selectedType: 'gemini-api-key' } },
      general: { disableAutoUpdate: true, disableUpdateNag: true },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
    });
    json(join(home, '.gemini', 'trustedFolders.json'), { [cwd]: 'TRUST_FOLDER' });
    return { args: [] };
  },
  qwen: ({ home, model, env }) => {
    Object.assign(env, {
      OPENAI_BASE_URL: `${model.url}/v1`,
      OPENAI_API_KEY: FAKE_KEYS.openai,
      OPENAI_MODEL: QWEN_MODEL,
    });
    json(join(home, '.qwen', 'settings.json'), {
      // Its current settings format: an older (or no) version makes it rewrite the file.
      $version: 4,
      security: { auth: { selectedType: 'openai' } },
      general: { enableAutoUpdate: false },
      privacy: { usageStatisticsEnabled: false },
      telemetry: { enabled: false },
      tools: {
        // Its built-in grep: neither the bundled ripgrep nor a warning that rg is not installed.
        useRipgrep: false,
        // Ask before running a command (the default, `auto`, has a model classify each call).
        approvalMode: 'default',
      },
      ui: {
        // A suggestion of what to type next is a model request of its own, and Enter takes it.
        enableFollowupSuggestions: false,
        // A feedback dialog that comes at random after a conversation.
        enableUserFeedback: false,
      },
      // Background model calls that write memories after a turn.
      memory: { enableManagedAutoMemory: false, enableManagedAutoDream: false },
    });
    return { args: [] };
  },
  opencode: ({ home, model, env }) => {
    // OpenCode keeps its config, sessions, caches and state in the XDG folders: the temp HOME's.
    const config = join(home, '.config', 'opencode');
    Object.assign(env, {
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_DATA_HOME: join(home, '.local', 'share'),
      XDG_CACHE_HOME: join(home, '.cache'),
      XDG_STATE_HOME: join(home, '.local', 'state'),
      OPENCODE_DISABLE_AUTOUPDATE: '1',
      OPENCODE_DISABLE_MODELS_FETCH: '1',
      OPENCODE_DISABLE_LSP_DOWNLOAD: '1',
      OPENCODE_DISABLE_SHARE: '1',
      OPENCODE_DISABLE_CLAUDE_CODE: '1',
    });
    json(join(config, 'opencode.json'), {
      $schema: 'https://opencode.ai/config.json',
      autoupdate: false,
      share: 'disabled',
      model: 'fake/fake-model',
      small_model: 'fake/fake-model',
      provider: {
        fake: {
          npm: '@ai-sdk/openai-compatible',
          name: 'Fake',
          options: { baseURL: `${model.url}/v1`, apiKey: FAKE_KEYS.openai },
          models: { 'fake-model': { name: 'Fake Model' } },
        },
      },
      // Its shell tool asks first (by default it runs commands without asking).
      permission: { bash: 'ask' },
    });
    // OpenCode installs its plugin package into each config folder at every start, from the
    // registry, unless the folder's package.json, lock and node_modules say it is there.
    const dependencies = { '@opencode-ai/plugin': AGENT_PINS.opencode.version };
    json(join(config, 'package.json'), { dependencies });
    json(join(config, 'package-lock.json'), {
      lockfileVersion: 3,
      requires: true,
      packages: { '': { dependencies } },
    });
    mkdirSync(join(config, 'node_modules'));
    return { args: [] };
  },
  copilot: ({ home, cwd, model, env }) => {
    // Its own model provider (BYOK) and offline mode: no GitHub sign-in, no network but the model.
    Object.assign(env, {
      COPILOT_PROVIDER_BASE_URL: `${model.url}/v1`,
      COPILOT_PROVIDER_TYPE: 'openai',
      COPILOT_PROVIDER_API_KEY: FAKE_KEYS.openai,
      COPILOT_MODEL: 'fake-model',
      // Its limits for a model it does not know (else it says so on its screen at each start).
      COPILOT_PROVIDER_MAX_PROMPT_TOKENS: '128000',
      COPILOT_PROVIDER_MAX_OUTPUT_TOKENS: '8192',
      COPILOT_OFFLINE: 'true',
      COPILOT_AUTO_UPDATE: 'false',
    });
    // Its first-run state: the folder trusted (else its trust dialog), its tips seen.
    writeFileSync(
      join(mkdirp(join(home, '.copilot')), 'config.json'),
      `${JSON.stringify({ firstLaunchAt: new Date().toISOString(), appTipShown: true, trustedFolders: [cwd] }, null, 2)}\n`,
    );
    return { args: [] };
  },
};

/** The model Qwen Code asks the fake model for (`OPENAI_MODEL`): a name no price list has. */
export const QWEN_MODEL = 'fake-qwen-model';

function mkdirp(path: string): string {
  mkdirSync(path, { recursive: true });
  return path;
}

/**
 * The tool call that makes `agent` ask the user before running `command` (its approval
 * dialog): Claude Code's Bash tool, Codex's exec_command asking to run outside its sandbox,
 * Gemini CLI's and Qwen Code's run_shell_command, OpenCode's bash (its seeded config makes it
 * ask), Copilot CLI's bash.
 */
export function approvalToolCall(agent: RealAgentName, command: string): ToolCallAnswer {
  switch (agent) {
    case 'claude':
      return { kind: 'tool', name: 'Bash', input: { command, description: 'Run a command' } };
    case 'codex':
      return {
        kind: 'tool',
        name: 'exec_command',
        input: {
          cmd: command,
          sandbox_permissions: 'require_escalated',
          justification: `May I run ${command}?`,
        },
      };
    case 'gemini':
    case 'qwen':
      return {
        kind: 'tool',
        name: 'run_shell_command',
        input: { command, description: 'Run a command' },
      };
    case 'opencode':
    case 'copilot':
      return { kind: 'tool', name: 'bash', input: { command, description: 'Run a command' } };
  }
}

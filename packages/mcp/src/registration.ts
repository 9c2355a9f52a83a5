// How each agent registers `clippy mcp` as an MCP server, in one command of its own (checked
// against the installed CLIs: `claude mcp add`, `codex mcp add`, `gemini mcp add`, `qwen mcp
// add`, `opencode mcp add`, `copilot mcp add`). clippy prints it; the agent writes its own
// configuration. Loaded by `clippy mcp config` without the MCP SDK.

/** The agents whose registration clippy knows. */
export const MCP_AGENTS = ['claude', 'codex', 'gemini', 'qwen', 'opencode', 'copilot'] as const;
export type McpAgent = (typeof MCP_AGENTS)[number];

/** Each agent's name for people. */
export const AGENT_TITLES: Record<McpAgent, string> = {
  claude: 'Claude Code',
  codex: 'Codex',
  gemini: 'Gemini CLI',
  qwen: 'Qwen Code',
  opencode: 'OpenCode',
  copilot: 'Copilot CLI',
};

/**
 * Variables Codex passes to an MCP server it starts: it clears the rest of its environment, so
 * where clippy's socket is must be given to it (XDG_RUNTIME_DIR, or CLIPPY_SOCKET when set).
 */
const SOCKET_VARS = ['CLIPPY_SOCKET', 'XDG_RUNTIME_DIR'] as const;

export interface RegistrationOptions {
  /** The server's name in the agent's configuration (default `clippy`). */
  name?: string;
  /** The command the agent runs (default `clippy`: found on the agent's PATH). */
  command?: string;
  /** `clippy mcp`'s own options (`--read-only`, `--sessions A,B`). */
  args?: readonly string[];
  /** Where the socket variables are read, for Codex (default: none given). */
  env?: NodeJS.ProcessEnv;
}

/** A word as a POSIX shell reads it back: quoted only when it needs to be. */
export function shellWord(word: string): string {
  if (/^[A-Za-z0-9_@%+=:,./-]+$/u.test(word)) return word;
  return `'${word.replace(/'/gu, `'\\''`)}'`;
}

/** The one command that registers `clippy mcp` with `agent`, for its user (every project). */
export function registrationCommand(agent: McpAgent, o: RegistrationOptions = {}): string {
  const name = o.name ?? 'clippy';
  const server = [o.command ?? 'clippy', 'mcp', ...(o.args ?? [])];
  const words = ((): string[] => {
    switch (agent) {
      case 'claude':
        return ['claude', 'mcp', 'add', '--scope', 'user', name, '--', ...server];
      case 'codex': {
        const env = SOCKET_VARS.flatMap((v) => {
          const value = o.env?.[v];
          return value ? ['--env', `${v}=${value}`] : [];
        });
        return ['codex', 'mcp', 'add', name, ...env, '--', ...server];
      }
      case 'gemini':
        return ['gemini', 'mcp', 'add', '--scope', 'user', name, ...server];
      case 'qwen':
        return ['qwen', 'mcp', 'add', '--scope', 'user', name, ...server];
      case 'opencode':
        return ['opencode', 'mcp', 'add', name, '--', ...server];
      case 'copilot':
        return ['copilot', 'mcp', 'add', name, '--', ...server];
    }
  })();
  return words.map(shellWord).join(' ');
}

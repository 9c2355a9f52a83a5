// An agent for the tests: an MCP client of the protocol's own SDK, driving the real built
// `clippy mcp` process over its stdin and stdout (StdioClientTransport spawns it).
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { bins } from '@clippy/testkit/paths';

/** How long a tool call may take in a test: a fake agent's turn on a loaded 2-core machine. */
export const CALL_TIMEOUT_MS = 60_000;

export class McpProcess {
  private stderrTail = '';

  private constructor(
    readonly client: Client,
    private readonly transport: StdioClientTransport,
  ) {
    transport.stderr?.on('data', (d: Buffer) => {
      this.stderrTail = (this.stderrTail + d.toString()).slice(-8_000);
    });
  }

  /** Starts `clippy mcp ARGS` in `env` and connects to it as an agent does (initialize). */
  static async start(args: string[], env: NodeJS.ProcessEnv): Promise<McpProcess> {
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [bins.clippy, 'mcp', ...args],
      env: Object.fromEntries(
        Object.entries(env).filter((e): e is [string, string] => e[1] !== undefined),
      ),
      stderr: 'pipe',
    });
    const client = new Client({ name: 'clippy-test-agent', version: '0' });
    const self = new McpProcess(client, transport);
    try {
      await client.connect(transport, { timeout: CALL_TIMEOUT_MS });
    } catch (err) {
      await transport.close();
      throw new Error(`clippy mcp did not start: ${String(err)}; stderr: ${self.stderrTail}`);
    }
    return self;
  }

  /** What `clippy mcp` wrote to stderr (its tail). */
  get log(): string {
    return this.stderrTail;
  }

  get pid(): number | null {
    return this.transport.pid;
  }

  /** Calls a tool and returns its result (a tool error is a result, `isError` set). */
  async call(name: string, args: Record<string, unknown> = {}): Promise<CallToolResult> {
    return (await this.client.callTool({ name, arguments: args }, undefined, {
      timeout: CALL_TIMEOUT_MS,
    })) as CallToolResult;
  }

  /** Closes its stdin (the agent went away); the SDK kills it by PID if it does not exit. */
  async stop(): Promise<void> {
    await this.client.close();
  }
}

/** The text blocks of a result, in order. */
export function texts(r: CallToolResult): string[] {
  return r.content.flatMap((c) => (c.type === 'text' ? [c.text] : []));
}

/** A tool error's message and the daemon's (or clippy's) code for it; throws on a success. */
export function toolError(r: CallToolResult): { message: string; code: unknown } {
  if (!r.isError) throw new Error(`expected a tool error, got: ${JSON.stringify(r)}`);
  return { message: texts(r).join('\n'), code: r._meta?.['clippy/error'] };
}

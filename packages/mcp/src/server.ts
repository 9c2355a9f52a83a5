import type { Readable, Writable } from 'node:stream';
import type { ClippyClient } from '@clippy/client';
import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { McpContext, McpOptions } from './context.js';
import { toolErrorOf } from './errors.js';
import { SessionEvents } from './session-events.js';
import { TOOLS } from './tools/index.js';

/** What the agent's model is told about the server as a whole (clients put it in its prompt). */
const INSTRUCTIONS =
  'clippy runs terminal agents (Claude Code, Codex, Gemini CLI, …) and shells as sessions and ' +
  'keeps each completed turn exactly. list_sessions shows them; ask sends one a message and ' +
  'returns its answer exactly as it gave it; send and wait do the same in two steps; read_turn ' +
  'reads any stored turn; relay hands a turn from one session to another.';

/** Why serving ended: the agent closed the connection, or the daemon went away (`message`). */
export type McpEnd = { by: 'client' } | { by: 'daemon'; message: string };

/**
 * Serves MCP on `input`/`output` (newline-delimited JSON-RPC, the stdio transport, through the
 * protocol's SDK) until the agent closes `input` or the daemon goes away. Each tool is a client
 * of `daemon`; nothing is held here that the daemon holds.
 */
export async function serveMcp(
  daemon: ClippyClient,
  io: { input: Readable; output: Writable },
  options: McpOptions,
): Promise<McpEnd> {
  const events = new SessionEvents(daemon);
  const ctx: McpContext = { daemon, options, events };
  const server = new McpServer(
    { name: 'clippy', title: 'clippy', version: options.version },
    { instructions: INSTRUCTIONS, capabilities: { tools: {} } },
  );
  for (const tool of TOOLS) {
    if (options.readOnly && !tool.readOnly) continue;
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        ...(tool.output ? { outputSchema: tool.output } : {}),
        annotations: { title: tool.title, ...tool.annotations },
      },
      async (args: Record<string, unknown>, extra): Promise<CallToolResult> => {
        try {
          return await tool.run(ctx, args as never, extra.signal);
        } catch (err) {
          // Every failure is the tool's result, for the model to read and act on.
          const e = toolErrorOf(err);
          return {
            isError: true,
            content: [{ type: 'text', text: e.message }],
            ...(e.code ? { _meta: { 'clippy/error': e.code } } : {}),
          };
        }
      },
    );
  }
  const transport = new StdioServerTransport(io.input, io.output);
  let end: McpEnd = { by: 'client' };
  const ended = new Promise<void>((resolve) => {
    transport.onclose = () => resolve();
    io.input.once('end', () => resolve());
    io.input.once('close', () => resolve());
    void daemon.closed.then((info) => {
      if (info.reason === 'client') return;
      end = { by: 'daemon', message: info.message };
      resolve();
    });
  });
  await server.connect(transport);
  try {
    await ended;
    return end;
  } finally {
    events.dispose();
    await server.close().catch(() => undefined);
  }
}

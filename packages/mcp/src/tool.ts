import type { CallToolResult, ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import type { McpContext } from './context.js';

/**
 * One MCP tool: its schema and description as the agent's model sees them, and what it does
 * (one file per tool in tools/, registered in one table, as the daemon's request handlers are).
 */
export interface Tool<In extends z.ZodRawShape = z.ZodRawShape> {
  name: string;
  title: string;
  /** One line the model can act on: what it does, what it returns. */
  description: string;
  input: In;
  /**
   * The shape of its `structuredContent`, where it has one: only where that JSON says all the
   * text does (agents give it to their model instead of the text).
   */
  output?: z.ZodRawShape;
  /** Offered by `clippy mcp --read-only`: it changes nothing. */
  readOnly: boolean;
  annotations: ToolAnnotations;
  run(
    ctx: McpContext,
    args: z.infer<z.ZodObject<In>>,
    signal: AbortSignal,
  ): Promise<CallToolResult>;
}

/** Defines a tool with its argument types inferred from its input shape. */
export function defineTool<In extends z.ZodRawShape>(tool: Tool<In>): Tool<In> {
  return tool;
}

/** A plain result: `text` for the model, `structured` for programs. */
export function result(text: string, structured: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text }], structuredContent: structured };
}

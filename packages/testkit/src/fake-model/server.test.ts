import { GoogleGenAI, Type } from '@google/genai';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeModel, type FakeModel } from './server.js';

let fake: FakeModel | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** POSTs JSON and returns the server-sent events' data objects, in order. */
async function sse(url: string, body: unknown): Promise<Record<string, unknown>[]> {
  const res = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  expect(res.headers.get('content-type')).toContain('text/event-stream');
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((e) => e.includes('data: '))
    .map((e) => JSON.parse(e.slice(e.indexOf('data: ') + 6)) as Record<string, unknown>);
}

const TOOLS = [{ name: 'Bash', input_schema: { type: 'object' } }];

describe('fake model server', () => {
  it("speaks Anthropic Messages (SSE): text in pieces, a tool call, and logs the user's own text", async () => {
    fake = await startFakeModel({
      script: [
        { kind: 'text', text: 'Four, as asked.', pieces: 3 },
        { kind: 'tool', name: 'Bash', input: { command: 'touch x' } },
      ],
    });
    const ask = (content: unknown) =>
      sse(`${fake!.url}/v1/messages?beta=true`, {
        model: 'claude-test',
        stream: true,
        tools: TOOLS,
        messages: [{ role: 'user', content }],
      });
    const events = await ask([
      { type: 'text', text: '<system-reminder>context</system-reminder>' },
      { type: 'text', text: 'What is 2+2? #1 @x !y /z \\ $HOME' },
    ]);
    expect(events.map((e) => e.type)).toEqual([
      'message_start',
      'content_block_start',
      'content_block_delta',
      'content_block_delta',
      'content_block_delta',
      'content_block_stop',
      'message_delta',
      'message_stop',
    ]);
    const text = events
      .filter((e) => e.type === 'content_block_delta')
      .map((e) => (e.delta as { text: string }).text)
      .join('');
    expect(text).toBe('Four, as asked.');
    const tool = await ask('use a tool');
    expect(tool.find((e) => e.type === 'content_block_start')?.content_block).toMatchObject({
      type: 'tool_use',
      name: 'Bash',
    });
    expect(tool.find((e) => e.type === 'message_delta')?.delta).toMatchObject({
      stop_reason: 'tool_use',
    });
    expect(fake.userTexts('anthropic')).toEqual([
      'What is 2+2? #1 @x !y /z \\ $HOME',
      'use a tool',
    ]);
    expect(fake.requests.every((r) => r.answeredAt !== undefined)).toBe(true);
  });

  it('answers side requests (no tools) neutrally, without using the script', async () => {
    fake = await startFakeModel({ script: [{ kind: 'text', text: 'SCRIPTED' }] });
    const res = await fetch(`${fake.url}/v1/messages`, {
      method: 'POST',
      body: JSON.stringify({ model: 'haiku', messages: [{ role: 'user', content: 'title?' }] }),
    });
    const body = (await res.json()) as { content: { text: string }[] };
    expect(body.content[0]!.text).toBe('OK');
    expect(fake.requests[0]!.conversation).toBe(false);
    expect(fake.conversation()).toEqual([]);
  });

  it('speaks the OpenAI Responses API (SSE): a function call, then the tool result is logged', async () => {
    fake = await startFakeModel({
      script: [
        { kind: 'tool', name: 'exec_command', input: { cmd: 'ls' } },
        // Codex offers an MCP server's tools as the functions of a namespace.
        { kind: 'tool', name: 'ask', namespace: 'mcp__clippy', input: { session: 'sh' } },
      ],
    });
    const body = (input: unknown[]) => ({
      model: 'fake',
      stream: true,
      tools: [{ type: 'function', name: 'exec_command' }],
      input,
    });
    const events = await sse(
      `${fake.url}/v1/responses`,
      body([
        {
          type: 'message',
          role: 'user',
          content: [{ type: 'input_text', text: '<environment_context>x</environment_context>' }],
        },
        { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'list files?' }] },
      ]),
    );
    expect(events[0]!.type).toBe('response.created');
    expect(events.at(-1)!.type).toBe('response.completed');
    const done = events.find((e) => e.type === 'response.output_item.done');
    expect(done?.item).toMatchObject({ type: 'function_call', name: 'exec_command' });
    expect(done?.item).not.toHaveProperty('namespace');
    expect(JSON.parse((done!.item as { arguments: string }).arguments)).toEqual({ cmd: 'ls' });
    const next = await sse(
      `${fake.url}/v1/responses`,
      body([{ type: 'function_call_output', call_id: 'c', output: 'a.txt' }]),
    );
    expect(next.find((e) => e.type === 'response.output_item.done')?.item).toMatchObject({
      type: 'function_call',
      name: 'ask',
      namespace: 'mcp__clippy',
    });
    const [first, second] = fake.conversation('openai');
    expect(first!.userText).toBe('list files?');
    expect(second!.toolResult).toBe('a.txt');
    expect(second!.userText).toBeNull();
  });

  it('speaks OpenAI Chat Completions: a stream with usage, a tool call, then the tool result is logged', async () => {
    fake = await startFakeModel({
      script: [
        { kind: 'text', text: 'Four, as **asked**.', pieces: 3 },
        { kind: 'tool', name: 'run_shell_command', input: { command: 'ls' } },
        { kind: 'text', text: 'Done.' },
      ],
    });
    const post = (messages: unknown[], stream: boolean) =>
      fetch(`${fake!.url}/v1/chat/completions`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({
          model: 'fake-chat',
          stream,
          ...(stream ? { stream_options: { include_usage: true } } : {}),
          tools: [{ type: 'function', function: { name: 'run_shell_command' } }],
          messages,
        }),
      });
    const res = await post(
      [
        { role: 'system', content: 'be brief' },
        {
          role: 'user',
          content: [
            { type: 'text', text: '<system-reminder>ctx</system-reminder>' },
            { type: 'text', text: 'What is 2+2?' },
          ],
        },
      ],
      true,
    );
    const lines = (await res.text()).split('\n\n').filter((e) => e.startsWith('data: '));
    expect(lines.at(-1)).toBe('data: [DONE]');
    const chunks = lines.slice(0, -1).map(
      (e) =>
        JSON.parse(e.slice(6)) as {
          choices: { delta: { content?: string }; finish_reason: string | null }[];
          usage?: unknown;
        },
    );
    expect(chunks.map((c) => c.choices[0]?.delta.content ?? '').join('')).toBe(
      'Four, as **asked**.',
    );
    expect(chunks.find((c) => c.choices[0]?.finish_reason)?.choices[0]?.finish_reason).toBe('stop');
    expect(chunks.at(-1)!.usage).toEqual({
      prompt_tokens: 12,
      completion_tokens: 10,
      total_tokens: 22,
    });

    const tool = (await (await post([{ role: 'user', content: 'list files' }], false)).json()) as {
      choices: {
        message: { tool_calls: { function: { name: string; arguments: string } }[] };
        finish_reason: string;
      }[];
    };
    expect(tool.choices[0]!.finish_reason).toBe('tool_calls');
    expect(tool.choices[0]!.message.tool_calls[0]!.function.name).toBe('run_shell_command');
    expect(JSON.parse(tool.choices[0]!.message.tool_calls[0]!.function.arguments)).toEqual({
      command: 'ls',
    });
    await post(
      [
        { role: 'user', content: 'list files' },
        { role: 'tool', tool_call_id: 'c', content: 'a.txt' },
      ],
      false,
    );
    // Copilot CLI's user message: the date in front of the text, in the same string.
    await post(
      [
        {
          role: 'user',
          content: '<current_datetime>2026-12-05T10:43:16.972+00:00</current_datetime>\n\nhello?',
        },
      ],
      false,
    );
    const [first, second, third, fourth] = fake.conversation('openai-chat');
    expect(first!.userText).toBe('What is 2+2?');
    expect(second!.userText).toBe('list files');
    expect(third!.toolResult).toBe('a.txt');
    expect(third!.userText).toBeNull();
    expect(fourth!.userText).toBe('hello?');
  });

  it('speaks the Gemini API to the real SDK: a stream, and a JSON side question answered from its schema', async () => {
    fake = await startFakeModel({ script: [{ kind: 'text', text: 'Hello from the fake.' }] });
    const ai = new GoogleGenAI({ apiKey: 'test', httpOptions: { baseUrl: fake.url } });
    const stream = await ai.models.generateContentStream({
      model: 'gemini-test',
      contents: [
        {
          role: 'user',
          parts: [{ text: '<session_context>setup</session_context>' }, { text: 'hi?' }],
        },
      ],
      config: { tools: [{ functionDeclarations: [{ name: 'run_shell_command' }] }] },
    });
    let text = '';
    for await (const chunk of stream) text += chunk.text ?? '';
    expect(text).toBe('Hello from the fake.');
    expect(fake.userTexts('gemini')).toEqual(['hi?']);

    const json = await ai.models.generateContent({
      model: 'gemini-test',
      contents: 'who speaks next?',
      config: {
        responseMimeType: 'application/json',
        responseJsonSchema: {
          type: Type.OBJECT,
          properties: {
            reasoning: { type: Type.STRING },
            next_speaker: { type: Type.STRING, enum: ['model', 'user'] },
          },
        },
      },
    });
    expect(JSON.parse(json.text!)).toEqual({ reasoning: 'fake', next_speaker: 'user' });
  });

  it('answers several calls with their usage in each API (one answer, in order)', async () => {
    const answer = {
      kind: 'tool' as const,
      name: 'a',
      input: { n: 1 },
      more: [{ name: 'b', input: { n: 2 } }],
      usage: { input: 100, output: 7, thoughts: 3 },
    };
    fake = await startFakeModel({ respond: () => answer });
    const post = async (path: string, body: unknown) =>
      (await (
        await fetch(`${fake!.url}${path}`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(body),
        })
      ).json()) as Record<string, unknown>;
    const user = { role: 'user', content: 'go' };
    const claude = await post('/v1/messages', { model: 'm', tools: TOOLS, messages: [user] });
    expect((claude.content as { name: string }[]).map((b) => b.name)).toEqual(['a', 'b']);
    expect(claude.usage).toMatchObject({ input_tokens: 100, output_tokens: 10 });
    const codex = await post('/v1/responses', { model: 'm', tools: TOOLS, input: [user] });
    expect((codex.output as { name: string }[]).map((o) => o.name)).toEqual(['a', 'b']);
    expect(codex.usage).toMatchObject({ input_tokens: 100, output_tokens: 10, total_tokens: 110 });
    const chat = await post('/v1/chat/completions', { model: 'm', tools: TOOLS, messages: [user] });
    const [choice] = chat.choices as {
      message: { tool_calls: { function: { name: string } }[] };
    }[];
    expect(choice!.message.tool_calls.map((c) => c.function.name)).toEqual(['a', 'b']);
    expect(chat.usage).toMatchObject({ prompt_tokens: 100, completion_tokens: 10 });
  });

  it('holds a hanging stream open until the client leaves or the test releases it', async () => {
    fake = await startFakeModel({ script: [{ kind: 'hang', text: 'thinking' }] });
    const pending = sse(`${fake.url}/v1/messages`, {
      model: 'm',
      stream: true,
      tools: TOOLS,
      messages: [{ role: 'user', content: 'think long' }],
    });
    const req = await fake.waitFor((r) => r.userText === 'think long');
    expect(req.answeredAt).toBeUndefined();
    fake.releaseHanging();
    const events = await pending;
    expect(events.map((e) => e.type)).toContain('content_block_delta');
    await fake.waitFor((r) => r.seq === req.seq, { answered: true });
  });

  it('answers an error as each OpenAI API does: its status and an error object with the message', async () => {
    fake = await startFakeModel({
      respond: () => ({ kind: 'error', status: 529, message: 'overloaded' }),
    });
    for (const [path, body] of [
      ['/v1/responses', { model: 'm', tools: TOOLS, input: [{ role: 'user', content: 'go' }] }],
      [
        '/v1/chat/completions',
        { model: 'm', tools: TOOLS, messages: [{ role: 'user', content: 'go' }] },
      ],
    ] as const) {
      const res = await fetch(`${fake.url}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(body),
      });
      expect(res.status, path).toBe(529);
      expect(await res.json()).toEqual({
        error: { message: 'overloaded', type: 'server_error', code: null },
      });
    }
  });
});

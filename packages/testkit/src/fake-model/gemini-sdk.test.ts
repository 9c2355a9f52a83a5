// The fake model as the navigator's tests use it: the real @google/genai SDK calling tools, with
// token counts, several calls in one answer, malformed calls, raw bodies and HTTP errors.
import { ApiError, FunctionCallingConfigMode, GoogleGenAI, Type } from '@google/genai';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeModel, type FakeModel } from './server.js';

let fake: FakeModel | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

/** A function the model may call: what makes a request a turn of the conversation. */
const tools = [
  {
    functionDeclarations: [
      {
        name: 'finalize_context',
        description: 'finish',
        parameters: { type: Type.OBJECT, properties: { summary: { type: Type.STRING } } },
      },
    ],
  },
];

function sdk(f: FakeModel) {
  return new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: f.url } });
}

/** A request for content with the tools offered, as the navigator's planner sends one. */
function ask(f: FakeModel, model = 'gemini-2.5-flash') {
  return sdk(f).models.generateContent({ model, contents: 'x', config: { tools } });
}

describe('fake model server: Gemini through the real SDK', () => {
  it('answers with several function calls and their usage, and records the request', async () => {
    fake = await startFakeModel({
      script: [
        {
          kind: 'tool',
          name: 'finalize_context',
          input: { summary: 'done' },
          more: [{ name: 'finalize_context', input: { summary: 'again' } }],
          usage: { input: 1200, output: 40, thoughts: 100 },
        },
      ],
    });
    const res = await sdk(fake).models.generateContent({
      model: 'gemini-2.5-flash',
      contents: [{ role: 'user', parts: [{ text: 'hello map' }] }],
      config: {
        systemInstruction: 'you are a navigator',
        tools,
        toolConfig: { functionCallingConfig: { mode: FunctionCallingConfigMode.ANY } },
      },
    });
    expect(res.functionCalls).toEqual([
      { name: 'finalize_context', args: { summary: 'done' } },
      { name: 'finalize_context', args: { summary: 'again' } },
    ]);
    expect(res.usageMetadata).toMatchObject({
      promptTokenCount: 1200,
      candidatesTokenCount: 40,
      thoughtsTokenCount: 100,
      totalTokenCount: 1340,
    });
    expect(fake.requests).toHaveLength(1);
    const req = fake.requests[0]!;
    expect(req.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(req.headers['x-goog-api-key']).toBe('test-key');
    expect(req.userText).toBe('hello map');
    const body = req.body as { systemInstruction: { parts: { text: string }[] } };
    expect(body.systemInstruction.parts[0]!.text).toBe('you are a navigator');
    expect(fake.pending()).toBe(0);
  });

  it('sends HTTP errors with Google error bodies that the SDK raises as ApiError with .status', async () => {
    fake = await startFakeModel({
      script: [
        { kind: 'error', status: 429 },
        { kind: 'error', status: 503 },
        { kind: 'text', text: 'ok' },
      ],
      // A script run out is an error a retrying client does not retry.
      defaultAnswer: { kind: 'error', status: 400, message: 'no scripted answer left' },
    });
    const e1 = await ask(fake).catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(ApiError);
    expect((e1 as ApiError).status).toBe(429);
    expect((e1 as ApiError).message).toContain('RESOURCE_EXHAUSTED');
    const e2 = await ask(fake).catch((e: unknown) => e);
    expect((e2 as ApiError).message).toContain('UNAVAILABLE');
    expect((await ask(fake)).text).toBe('ok');
    const e3 = await ask(fake).catch((e: unknown) => e);
    expect((e3 as ApiError).status).toBe(400);
    expect(fake.conversation('gemini')).toHaveLength(4);
  });

  it('answers malformed function calls and raw bodies', async () => {
    fake = await startFakeModel({
      script: [
        { kind: 'malformed', usage: { input: 10 } },
        {
          kind: 'raw',
          body: { candidates: [{ content: { role: 'model', parts: [{ text: 'raw!' }] } }] },
        },
      ],
    });
    const bad = await ask(fake);
    expect(bad.candidates?.[0]?.finishReason).toBe('MALFORMED_FUNCTION_CALL');
    expect(bad.functionCalls).toBeUndefined();
    expect(bad.usageMetadata?.promptTokenCount).toBe(10);
    expect((await ask(fake)).text).toBe('raw!');
  });

  it('streams over SSE and counts tokens as the test says', async () => {
    fake = await startFakeModel({
      script: [{ kind: 'text', text: 'streamed', usage: { input: 5, output: 2 } }],
      countTokens: () => 321,
    });
    const ai = sdk(fake);
    const stream = await ai.models.generateContentStream({
      model: 'gemini-2.5-pro',
      contents: 'hi',
      config: { tools },
    });
    let text = '';
    let prompt: number | undefined;
    for await (const chunk of stream) {
      text += chunk.text ?? '';
      prompt = chunk.usageMetadata?.promptTokenCount ?? prompt;
    }
    expect(text).toBe('streamed');
    expect(prompt).toBe(5);
    const counted = await ai.models.countTokens({
      model: 'gemini-2.5-pro',
      contents: 'some words',
    });
    expect(counted.totalTokens).toBe(321);
    expect(fake.requests.map((r) => r.path.split(':').at(-1))).toEqual([
      'streamGenerateContent',
      'countTokens',
    ]);
    expect(fake.requests[0]!.query.alt).toBe('sse');
    // A count is not a turn of the conversation: the script is left alone.
    expect(fake.conversation('gemini')).toHaveLength(1);
  });

  it('closes idempotently and refuses connections afterwards', async () => {
    fake = await startFakeModel();
    const url = fake.url;
    await fake.close();
    await fake.dispose();
    await expect(
      fetch(`${url}/v1beta/models/x:generateContent`, { method: 'POST' }),
    ).rejects.toThrow();
  });
});

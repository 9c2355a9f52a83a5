import { ApiError, FunctionCallingConfigMode, GoogleGenAI, Type } from '@google/genai';
import { afterEach, describe, expect, it } from 'vitest';
import { startFakeGemini, type FakeGemini } from './fake-gemini.js';

let fake: FakeGemini | undefined;
afterEach(async () => {
  await fake?.close();
  fake = undefined;
});

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

function sdk(f: FakeGemini) {
  return new GoogleGenAI({ apiKey: 'test-key', httpOptions: { baseUrl: f.url } });
}

describe('fake Gemini server with the real SDK', () => {
  it('answers generateContent with a scripted function call and usage, and records the request', async () => {
    fake = await startFakeGemini({
      responses: [
        {
          functionCalls: [{ name: 'finalize_context', args: { summary: 'done' } }],
          usage: { promptTokenCount: 1200, candidatesTokenCount: 40, thoughtsTokenCount: 100 },
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
    expect(res.functionCalls).toEqual([{ name: 'finalize_context', args: { summary: 'done' } }]);
    expect(res.usageMetadata?.promptTokenCount).toBe(1200);
    expect(res.usageMetadata?.candidatesTokenCount).toBe(40);
    expect(res.usageMetadata?.thoughtsTokenCount).toBe(100);
    expect(fake.requests).toHaveLength(1);
    const req = fake.requests[0]!;
    expect(req.path).toBe('/v1beta/models/gemini-2.5-flash:generateContent');
    expect(req.headers['x-goog-api-key']).toBe('test-key');
    const body = req.body as {
      contents: { parts: { text: string }[] }[];
      systemInstruction: { parts: { text: string }[] };
      tools: { functionDeclarations: { name: string }[] }[];
    };
    expect(body.contents[0]!.parts[0]!.text).toBe('hello map');
    expect(body.systemInstruction.parts[0]!.text).toBe('you are a navigator');
    expect(body.tools[0]!.functionDeclarations[0]!.name).toBe('finalize_context');
    expect(fake.pending()).toBe(0);
  });

  it('sends HTTP errors with Google error bodies that the SDK raises as ApiError with .status', async () => {
    fake = await startFakeGemini({
      responses: [{ kind: 'error', status: 429 }, { kind: 'error', status: 500 }, { text: 'ok' }],
    });
    const ai = sdk(fake);
    const call = () => ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'x' });
    const e1 = await call().catch((e: unknown) => e);
    expect(e1).toBeInstanceOf(ApiError);
    expect((e1 as ApiError).status).toBe(429);
    expect((e1 as ApiError).message).toContain('RESOURCE_EXHAUSTED');
    const e2 = await call().catch((e: unknown) => e);
    expect((e2 as ApiError).status).toBe(500);
    expect((await call()).text).toBe('ok');
    // An exhausted script is a 400, so retrying clients do not spin.
    const e3 = await call().catch((e: unknown) => e);
    expect((e3 as ApiError).status).toBe(400);
    expect(fake.generateRequests()).toHaveLength(4);
  });

  it('scripts malformed function calls and raw bodies', async () => {
    fake = await startFakeGemini();
    fake.enqueue({ kind: 'malformed', usage: { promptTokenCount: 10 } });
    fake.enqueue({
      kind: 'raw',
      body: { candidates: [{ content: { role: 'model', parts: [{ text: 'raw!' }] } }] },
    });
    const ai = sdk(fake);
    const bad = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'x' });
    expect(bad.candidates?.[0]?.finishReason).toBe('MALFORMED_FUNCTION_CALL');
    expect(bad.functionCalls).toBeUndefined();
    const raw = await ai.models.generateContent({ model: 'gemini-2.5-flash', contents: 'x' });
    expect(raw.text).toBe('raw!');
  });

  it('streams over SSE and counts tokens', async () => {
    fake = await startFakeGemini({
      responses: [{ text: 'streamed', usage: { promptTokenCount: 5, candidatesTokenCount: 2 } }],
      countTokens: () => 321,
    });
    const ai = sdk(fake);
    const stream = await ai.models.generateContentStream({
      model: 'gemini-2.5-pro',
      contents: 'hi',
    });
    let text = '';
    for await (const chunk of stream) text += chunk.text ?? '';
    expect(text).toBe('streamed');
    const counted = await ai.models.countTokens({
      model: 'gemini-2.5-pro',
      contents: 'some words here',
    });
    expect(counted.totalTokens).toBe(321);
    expect(fake.requests.map((r) => r.action)).toEqual(['streamGenerateContent', 'countTokens']);
    expect(fake.requests[0]!.query.alt).toBe('sse');
  });

  it('closes idempotently and refuses connections afterwards', async () => {
    fake = await startFakeGemini();
    const url = fake.url;
    await fake.close();
    await fake.dispose();
    await expect(
      fetch(`${url}/v1beta/models/x:generateContent`, { method: 'POST' }),
    ).rejects.toThrow();
  });
});

import { describe, expect, it } from 'vitest';
import { limitLines } from './line-limit.js';

/** Runs `chunks` through limitLines(limit): the lines let through and the refusals given. */
async function through(limit: number, chunks: string[]) {
  const refused: object[] = [];
  const out: string[] = [];
  const input = new ReadableStream<Uint8Array>({
    start(c) {
      for (const chunk of chunks) c.enqueue(Buffer.from(chunk));
      c.close();
    },
  });
  const reader = input.pipeThrough(limitLines(limit, (r) => refused.push(r))).getReader();
  for (;;) {
    const { value, done } = await reader.read();
    if (done) break;
    out.push(Buffer.from(value).toString());
  }
  return { lines: out.join(''), refused };
}

const big = (n: number) => 'x'.repeat(n);

describe('limitLines', () => {
  it('lets lines within the limit through whole, however they were cut', async () => {
    const r = await through(20, ['{"a":', '1}\n{"b"', ':2}\n', '{"c":3}']);
    expect(r.lines).toBe('{"a":1}\n{"b":2}\n{"c":3}\n');
    expect(r.refused).toEqual([]);
  });

  it('drops a longer line unread and answers it with its id; the next line goes on', async () => {
    const long = `{"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{"t":"${big(100)}"}}\n`;
    const r = await through(50, [long.slice(0, 30), long.slice(30), '{"id":8}\n']);
    expect(r.lines).toBe('{"id":8}\n');
    expect(r.refused).toEqual([
      {
        jsonrpc: '2.0',
        id: 7,
        error: {
          code: -32600,
          message: expect.stringMatching(
            /^Invalid request: the message is \d+ bytes or more, over the 50 bytes clippy acp reads; it was dropped unread$/u,
          ) as unknown,
        },
      },
    ]);
  });

  it('finds the id after the long part, and never a nested one', async () => {
    const long = `{"params":{"id":1,"t":"${big(100)} \\" {"}, "id" : "req-\\"2\\"" }\n`;
    const r = await through(50, [long]);
    expect(r.refused).toMatchObject([{ id: 'req-"2"' }]);
  });

  it('answers with id null what names none, or is not an object; a last line without newline too', async () => {
    const r = await through(10, [`[1,2,3,${big(20)}]\n`, `{"method":"x","p":"${big(20)}"}`]);
    expect(r.refused).toMatchObject([{ id: null }, { id: null }]);
    expect(r.lines).toBe('');
  });
});

import type { ServerResponse } from 'node:http';

/** Opens a server-sent event stream. */
export function openStream(res: ServerResponse): void {
  res.writeHead(200, {
    'content-type': 'text/event-stream',
    'cache-control': 'no-cache',
    connection: 'keep-alive',
  });
  // Headers go out at once: agents show "thinking" from here.
  res.flushHeaders();
}

/** Writes one event (`event:` line only when named), resolving when it was handed to the socket. */
export function sendEvent(res: ServerResponse, data: unknown, event?: string): Promise<void> {
  const text = `${event ? `event: ${event}\n` : ''}data: ${JSON.stringify(data)}\n\n`;
  return new Promise((resolve) => {
    if (res.destroyed || res.writableEnded) return resolve();
    res.write(text, () => resolve());
  });
}

/** Splits `text` into at most `n` pieces of about the same size (cut between code points). */
export function pieces(text: string, n: number): string[] {
  const chars = [...text];
  if (chars.length === 0) return [''];
  const size = Math.max(1, Math.ceil(chars.length / Math.max(1, n)));
  const out: string[] = [];
  for (let i = 0; i < chars.length; i += size) out.push(chars.slice(i, i + size).join(''));
  return out;
}

export const sleep = (ms: number) =>
  ms > 0 ? new Promise<void>((r) => setTimeout(r, ms)) : Promise.resolve();

import { agent, methods, ndJsonStream, type Stream } from '@agentclientprotocol/sdk';
import type { ClippyClient } from '@clippy/client';
import { AcpSessions } from './acp-sessions.js';
import type { AcpContext, AcpOptions } from './context.js';
import { DaemonLink } from './daemon-link.js';
import { MAX_MESSAGE_BYTES, limitLines } from './line-limit.js';
import { cancel } from './handlers/cancel.js';
import { closeSession } from './handlers/close-session.js';
import { initialize } from './handlers/initialize.js';
import { listSessions } from './handlers/list-sessions.js';
import { loadSession } from './handlers/load-session.js';
import { newSession } from './handlers/new-session.js';
import { prompt } from './handlers/prompt.js';

/**
 * How an editor and `clippy acp` talk: newline-delimited JSON-RPC on stdin and stdout. A message
 * longer than MAX_MESSAGE_BYTES is answered with a JSON-RPC error (limitLines) and the
 * connection goes on; the SDK's reader and that answer share stdout, one whole line at a time.
 */
export function stdioStream(
  input: ReadableStream<Uint8Array>,
  output: WritableStream<Uint8Array>,
): Stream {
  const writer = output.getWriter();
  let last: Promise<void> = Promise.resolve();
  const write = (line: Uint8Array): Promise<void> => {
    const done = last.then(() => writer.write(line));
    last = done.catch(() => {});
    return done;
  };
  const encoder = new TextEncoder();
  const refuse = (response: object) =>
    void write(encoder.encode(`${JSON.stringify(response)}\n`)).catch(() => {});
  return ndJsonStream(
    new WritableStream<Uint8Array>({ write }),
    input.pipeThrough(limitLines(MAX_MESSAGE_BYTES, refuse)),
    { maxMessageBytes: MAX_MESSAGE_BYTES },
  );
}

/**
 * Serves one editor over `stream` as an ACP agent (the protocol's SDK does the JSON-RPC and
 * checks every request against the protocol's schema) until the editor disconnects. Each ACP
 * session runs in a clippy session of `daemon`; nothing is held here that the daemon holds.
 * Sessions outlive the editor's connection, as they outlive a terminal: `session/load` (or
 * `clippy attach`) takes them up again.
 */
export async function serveAcp(
  daemon: ClippyClient,
  stream: Stream,
  options: AcpOptions,
): Promise<AcpEnd> {
  const ctx: AcpContext = { link: new DaemonLink(daemon), sessions: new AcpSessions(), options };
  const app = agent({ name: 'clippy' })
    .onRequest(methods.agent.initialize, () => initialize(ctx))
    .onRequest(methods.agent.session.new, ({ params }) => newSession(ctx, params))
    .onRequest(methods.agent.session.load, ({ params, client }) => loadSession(ctx, client, params))
    .onRequest(methods.agent.session.list, ({ params }) => listSessions(ctx, params))
    .onRequest(methods.agent.session.close, ({ params }) => closeSession(ctx, params))
    .onRequest(methods.agent.session.prompt, ({ params, client }) => prompt(ctx, client, params))
    .onNotification(methods.agent.session.cancel, ({ params }) => cancel(ctx, params));
  const connection = app.connect(stream);
  // The daemon going away ends every session's prompt: nothing more can be answered.
  let end: AcpEnd = { by: 'editor' };
  void daemon.closed.then((info) => {
    if (info.reason === 'client') return;
    end = { by: 'daemon', message: info.message };
    connection.close(new Error(info.message));
  });
  try {
    await connection.closed;
    return end;
  } finally {
    for (const s of ctx.sessions.all()) s.turn?.cancel();
    ctx.link.dispose();
  }
}

/** Why serving ended: the editor closed the connection, or the daemon went away (`message`). */
export type AcpEnd = { by: 'editor' } | { by: 'daemon'; message: string };

export type { AcpOptions };

import { RequestError } from '@agentclientprotocol/sdk';
import type { ClippyClient } from '@clippy/client';
import type { SessionInfo } from '@clippy/protocol';

/** A clippy session by ID or name (a live one before an exited one of that name). */
export async function findSession(daemon: ClippyClient, ref: string): Promise<SessionInfo> {
  const { sessions } = await daemon.request('list_sessions', {});
  const info =
    sessions.find((s) => s.session === ref) ??
    sessions.find((s) => s.name === ref && s.state !== 'exited') ??
    sessions.find((s) => s.name === ref);
  if (!info) {
    throw new RequestError(
      -32002,
      `no clippy session has the ID or name '${ref}' (see clippy ls)`,
      {
        sessionId: ref,
      },
    );
  }
  return info;
}

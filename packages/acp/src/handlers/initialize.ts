import { PROTOCOL_VERSION, type InitializeResponse } from '@agentclientprotocol/sdk';
import type { AcpContext } from '../context.js';

/**
 * What clippy offers an editor: sessions to load (clippy's, with their turns), to list and to
 * close; prompts of text and resource links only — a terminal agent reads what is typed into
 * it, so images, audio and embedded resources are not offered. ACP version 1, the one this SDK
 * speaks (the editor's, when it asks for a later one, is answered with ours).
 */
export function initialize(ctx: AcpContext): InitializeResponse {
  return {
    protocolVersion: PROTOCOL_VERSION,
    agentCapabilities: {
      loadSession: true,
      promptCapabilities: { image: false, audio: false, embeddedContext: false },
      mcpCapabilities: { http: false, sse: false },
      sessionCapabilities: { list: {}, close: {} },
    },
    agentInfo: { name: 'clippy', title: 'clippy', version: ctx.options.version },
    authMethods: [],
  };
}

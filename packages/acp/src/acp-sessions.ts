import type { SessionInfo } from '@clippy/protocol';
import type { ClippySession, PromptTurn } from './prompt-turn.js';

/** An ACP session: the clippy session it runs in, and its prompt while one runs. */
export interface AcpSession {
  /**
   * The ACP session ID: the clippy session's ID (unique, never reused), or the name the editor
   * loaded it by (`session/load` takes either).
   */
  id: string;
  clippy: ClippySession;
  /** This `clippy acp` started the clippy session (session/close ends it then). */
  started: boolean;
  turn: PromptTurn | null;
}

/** The ACP sessions of one editor connection, by ID. */
export class AcpSessions {
  private readonly byId = new Map<string, AcpSession>();

  add(id: string, info: Pick<SessionInfo, 'session' | 'name'>, started: boolean): AcpSession {
    const existing = this.byId.get(id);
    if (existing) return existing;
    const session: AcpSession = {
      id,
      clippy: { id: info.session, name: info.name },
      started,
      turn: null,
    };
    this.byId.set(session.id, session);
    return session;
  }

  get(id: string): AcpSession | undefined {
    return this.byId.get(id);
  }

  delete(id: string): void {
    this.byId.delete(id);
  }

  all(): AcpSession[] {
    return [...this.byId.values()];
  }
}

import type { ClippyClient } from '@clippy/client';
import type { Push } from '@clippy/protocol';

/** The pushes an attach acts on; all of them name their session. */
export type SessionPush = Extract<Push, { type: 'output' | 'exit' | 'detached' | 'notice' }>;

/**
 * The pushes about the attached session, in order. Those that arrive before open() (live output
 * can share a socket write with the attach's answer) wait, so the replayed screen is painted
 * before anything that came after it. dispose() stops listening.
 */
export class SessionPushes {
  private early: Push[] | null = [];
  private names = new Set<string>();
  private readonly off: () => void;

  constructor(
    client: ClippyClient,
    private readonly deliver: (push: SessionPush) => void,
  ) {
    this.off = client.onAny((p) => {
      if (this.early) this.early.push(p);
      else this.route(p);
    });
  }

  /** The session is known by these names (as asked, its ID, its name): deliver what waited. */
  open(names: string[]): void {
    this.names = new Set(names);
    const early = this.early ?? [];
    this.early = null;
    for (const p of early) this.route(p);
  }

  private route(p: Push): void {
    switch (p.type) {
      case 'output':
      case 'exit':
      case 'detached':
      case 'notice':
        if (this.names.has(p.session)) this.deliver(p);
        break;
      default:
        break;
    }
  }

  dispose(): void {
    this.off();
    this.early = null;
  }
}

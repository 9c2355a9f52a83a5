import { BrokerError, connect, type ClippyClient, type ConnectOptions } from '@clippy/client';
import type { BrokerLink } from './broker-link.js';

/** The session name a run registers under unless told otherwise (`clippy relay nav claude`). */
export const DEFAULT_SESSION_NAME = 'nav';
/** Tries of `nav`, `nav-2`, … when the name is taken by another live session. */
const NAME_ATTEMPTS = 5;
/** A broker that does not answer a request this fast is treated as gone (the run goes on alone). */
const BROKER_REQUEST_TIMEOUT_MS = 5_000;

/**
 * The navigator run as a broker session: registered with role `wrapper` and kind `navigator`,
 * busy/idle as it works, each Turn Report and the final context published as turns, and text
 * injected into it (relayed from another session) taken as feedback for the next step.
 * A broker that goes away mid-run only ends the registration: the run itself goes on.
 */
export class ClientBrokerLink implements BrokerLink {
  private session: string | null = null;
  private readonly feedback: string[] = [];
  private offInject: (() => void) | null = null;
  private failed = false;
  closed = false;

  private constructor(
    private readonly client: ClippyClient,
    private readonly name: string,
    private readonly onWarning: (message: string) => void,
    private readonly keep: boolean,
  ) {}

  /**
   * Connects to a running broker (never starts one). Resolves to null when none answers: a
   * missing broker is not an error, the run is then standalone.
   */
  static async connect(opts: {
    name?: string;
    connect?: Omit<ConnectOptions, 'role' | 'autoStart'>;
    onWarning?: (message: string) => void;
    /** Keep the exited session in `clippy ls -a` after the run (default: removed). */
    keep?: boolean;
  }): Promise<ClientBrokerLink | null> {
    let client: ClippyClient;
    try {
      client = await connect({ ...opts.connect, role: 'wrapper' });
    } catch {
      return null;
    }
    return new ClientBrokerLink(
      client,
      opts.name ?? DEFAULT_SESSION_NAME,
      opts.onWarning ?? (() => {}),
      opts.keep ?? false,
    );
  }

  /** The registered session's ID (null before start or after a failure). */
  get sessionId(): string | null {
    return this.session;
  }

  private async call<T>(what: string, fn: () => Promise<T>): Promise<T | undefined> {
    if (this.failed || !this.session) return undefined;
    try {
      return await fn();
    } catch (err) {
      this.failed = true;
      this.onWarning(
        `broker ${what} failed (${(err as Error).message}); the run goes on without the broker`,
      );
      return undefined;
    }
  }

  async start(info: { goal: string; root: string }): Promise<void> {
    for (let i = 1; i <= NAME_ATTEMPTS; i++) {
      const name = i === 1 ? this.name : `${this.name}-${i}`;
      try {
        const res = await this.client.request(
          'register',
          {
            session: name,
            pid: process.pid,
            pattern: 'navigator',
            kind: 'navigator',
            command: `clippy navigate --goal ${JSON.stringify(info.goal)}`,
            cwd: info.root,
          },
          { timeoutMs: BROKER_REQUEST_TIMEOUT_MS },
        );
        this.session = res.session;
        break;
      } catch (err) {
        if (err instanceof BrokerError && err.code === 'duplicate_session') continue;
        this.failed = true;
        this.onWarning(
          `could not register with the broker (${(err as Error).message}); running standalone`,
        );
        return;
      }
    }
    if (!this.session) {
      this.onWarning(
        `session names ${this.name}…${this.name}-${NAME_ATTEMPTS} are taken; running standalone`,
      );
      return;
    }
    this.offInject = this.client.on('inject', (push) => {
      if (push.session !== this.session && push.session !== this.name) return;
      const text = push.text.trim();
      if (text) this.feedback.push(text);
    });
  }

  async setBusy(busy: boolean): Promise<void> {
    await this.call('set_state', () =>
      this.client.request(
        'set_state',
        { session: this.session!, state: busy ? 'busy' : 'idle' },
        { timeoutMs: BROKER_REQUEST_TIMEOUT_MS },
      ),
    );
  }

  async turn(text: string): Promise<void> {
    await this.call('turn_completed', () =>
      this.client.request(
        'turn_completed',
        {
          session: this.session!,
          content: new TextEncoder().encode(text),
          text,
          interrupted: false,
          timestamp: Date.now(),
        },
        { timeoutMs: BROKER_REQUEST_TIMEOUT_MS },
      ),
    );
  }

  takeFeedback(): string[] {
    return this.feedback.splice(0);
  }

  /** Feedback texts received and not yet taken by a step. */
  get pendingFeedback(): number {
    return this.feedback.length;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.offInject?.();
    if (this.session && !this.failed) {
      try {
        await this.client.request(
          'deregister',
          { session: this.session },
          { timeoutMs: BROKER_REQUEST_TIMEOUT_MS },
        );
        // An exited navigator session only clutters `clippy ls -a` (one per run): gone unless kept.
        if (!this.keep)
          await this.client.request(
            'remove',
            { session: this.session },
            { timeoutMs: BROKER_REQUEST_TIMEOUT_MS },
          );
      } catch {
        // the broker went away: the registration ended with the connection anyway
      }
    }
    await this.client.close();
  }
}

// An editor for the tests: an ACP client built with the protocol's own SDK, driving the real
// `clippy acp` process (the built CLI) over its stdin and stdout.
import { spawn, type ChildProcess } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import {
  client,
  methods,
  ndJsonStream,
  RequestError,
  type ClientConnection,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
} from '@agentclientprotocol/sdk';
import { bins } from '@clippy/testkit/paths';

/** How long `clippy acp` gets to exit after its stdin closed (the editor went away). */
const EXIT_WAIT_MS = 10_000;

/** Something the editor saw, in the order it saw it. */
export type Seen =
  | { kind: 'update'; notification: SessionNotification }
  | { kind: 'permission'; request: RequestPermissionRequest }
  | { kind: 'response'; what: string };

export type PermissionAnswer = (
  request: RequestPermissionRequest,
) => RequestPermissionResponse | Promise<RequestPermissionResponse>;

export class AcpProcess {
  readonly seen: Seen[] = [];
  private readonly waiters = new Set<() => void>();
  private stderr = '';
  private answer: PermissionAnswer = () => ({ outcome: { outcome: 'cancelled' } });
  readonly exited: Promise<number | null>;

  private constructor(
    private readonly child: ChildProcess,
    readonly connection: ClientConnection,
  ) {
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  /** Starts `clippy acp ARGS` in `env` and connects to it as an editor. */
  static start(args: string[], env: NodeJS.ProcessEnv): AcpProcess {
    const child = spawn(process.execPath, [bins.clippy, 'acp', ...args], {
      env,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let self: AcpProcess | null = null;
    const app = client({ name: 'clippy-test-editor' })
      .onNotification(methods.client.session.update, ({ params }) => {
        self!.record({ kind: 'update', notification: params });
      })
      .onRequest(methods.client.session.requestPermission, async ({ params }) => {
        self!.record({ kind: 'permission', request: params });
        return self!.answer(params);
      });
    const connection = app.connect(
      ndJsonStream(
        Writable.toWeb(child.stdin!),
        Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
      ),
    );
    self = new AcpProcess(child, connection);
    child.stderr!.on(
      'data',
      (d: Buffer) => (self!.stderr = (self!.stderr + d.toString()).slice(-8_000)),
    );
    return self;
  }

  get agent() {
    return this.connection.agent;
  }

  get pid(): number {
    return this.child.pid!;
  }

  /** What `clippy acp` wrote to stderr (its tail). */
  get log(): string {
    return this.stderr;
  }

  /** How the editor answers the agent's questions from now on. */
  onPermission(answer: PermissionAnswer): void {
    this.answer = answer;
  }

  record(seen: Seen): void {
    this.seen.push(seen);
    for (const wake of [...this.waiters]) wake();
  }

  /** Resolves once `predicate` holds (checked on everything the editor sees). */
  until(predicate: () => boolean, what: string, timeoutMs = 30_000): Promise<void> {
    return new Promise((resolve, reject) => {
      const check = () => {
        if (!predicate()) return;
        clearTimeout(timer);
        this.waiters.delete(check);
        resolve();
      };
      const timer = setTimeout(() => {
        this.waiters.delete(check);
        reject(new Error(`timed out waiting for ${what}; stderr: ${this.stderr}`));
      }, timeoutMs);
      this.waiters.add(check);
      check();
    });
  }

  /** The session updates of `sessionId`, in order. */
  updates(sessionId: string) {
    return this.seen.flatMap((s) =>
      s.kind === 'update' && s.notification.sessionId === sessionId ? [s.notification.update] : [],
    );
  }

  /** The text of the agent's messages, by message ID, in the order they began. */
  messages(sessionId: string): { messageId: string; text: string }[] {
    const out: { messageId: string; text: string }[] = [];
    for (const u of this.updates(sessionId)) {
      if (u.sessionUpdate !== 'agent_message_chunk' || u.content.type !== 'text') continue;
      const id = u.messageId ?? '';
      const last = out.find((m) => m.messageId === id);
      if (last) last.text += u.content.text;
      else out.push({ messageId: id, text: u.content.text });
    }
    return out;
  }

  /** Sends a prompt of text; the response is recorded when it comes. */
  async prompt(sessionId: string, text: string) {
    const response = await this.agent.request(methods.agent.session.prompt, {
      sessionId,
      prompt: [{ type: 'text', text }],
    });
    this.record({ kind: 'response', what: `prompt:${response.stopReason}` });
    return response;
  }

  /** Closes stdin (the editor went away) and waits for the process to exit; kills it by PID if not. */
  async stop(): Promise<void> {
    this.connection.close();
    this.child.stdin?.end();
    const timer = setTimeout(() => this.child.kill('SIGKILL'), EXIT_WAIT_MS);
    if (this.child.exitCode === null && this.child.signalCode === null) await this.exited;
    clearTimeout(timer);
  }
}

/** The ACP error a request failed with. */
export async function acpErrorOf(p: Promise<unknown>): Promise<RequestError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof RequestError) return err;
    throw err;
  }
  throw new Error('the request succeeded');
}

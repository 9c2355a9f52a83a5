import {
  MIN_READABLE_COLS,
  type AgentName,
  encodeFrame,
  type Menu,
  type Push,
  type SessionInfo,
  type SessionKind,
  type SessionState,
} from '@clippy/protocol';
import {
  Attachment,
  OutputBatch,
  SocketSink,
  type AttachMode,
  type FlowLimits,
  type FlowSink,
  type FrameSink,
} from '../flow-control.js';
import type { PtyExit, PtyProcess } from '@clippy/system/pty';
import type { SessionTurns } from '../detection/session-turns.js';
import { OutputPipeline } from '../pipeline/output-pipeline.js';
import { SessionWorktree, type WorktreeRecord } from '../worktrees/session-worktree.js';

/** The terminal bell: a notification where a terminal shows one (tmux marks the window). */
const BEL = '\x07';

/** What a session tells the broker about (events, slow consumers). */
export interface SessionObserver {
  stateChanged(session: Session, previous: SessionState): void;
  exited(session: Session): void;
  /** A client fell beyond its queue; the broker detaches it and tells it why. */
  slowConsumer(session: Session, client: SessionClient): void;
  /** The session's size changed (a driving client, a fit, or the driver left). */
  resized?(session: Session): void;
}

/**
 * A connection as a session sees it: somewhere to send frames. It names the attachment; where
 * the output goes is the attachment's sink (this connection, or the client's terminal).
 */
export type SessionClient = FrameSink;

export interface SessionParams {
  id: string;
  name: string;
  kind: SessionKind;
  command: string;
  args: string[];
  cwd: string;
  cols: number;
  rows: number;
  preset: string;
  pattern: string | undefined;
  /** The PTY child; null for sessions a wrapper registered (it runs the process itself). */
  pty: PtyProcess | null;
  pid: number;
  flowLimits: FlowLimits;
  killGraceMs: number;
  observer: SessionObserver;
  /** Its turns go to the on-disk history (`--persist`). */
  persisted?: boolean;
  /** The git worktree it runs in (`clippy new --worktree`). */
  worktree?: WorktreeRecord | undefined;
  /**
   * Its preset's agent, when the agent's channel was wanted and not wired (the command line is
   * not the agent's): why, said in `list_sessions`.
   */
  agentOff?: { agent: AgentName; reason: string } | undefined;
  /** When the session first started (a revived one keeps its own); default now. */
  createdAt?: number;
  /** A session read back from the history after a restart: exited, no process. */
  restored?: {
    createdAt: number;
    exitedAt: number;
    exitCode: number | null;
    exitSignal: string | null;
    /** It was running when the daemon ended (no exit record), and ended with the daemon. */
    endedWithDaemon?: boolean;
  };
  /**
   * Builds the session's turns (detector and ring) while the session is built, before any
   * output: null for none. Called once, with the session's output pipeline and process in place.
   */
  turns(session: Session): SessionTurns | null;
}

/**
 * One session: owns its process (behind PtyProcess), its output pipeline (the clients first, then
 * the pipeline worker's screen model and turn detector: pipeline/output-pipeline.ts), the clients
 * attached to it and their flow control, and its turns. Input path: PTY → `onInput`.
 */
export class Session {
  readonly id: string;
  name: string;
  readonly kind: SessionKind;
  readonly command: string;
  readonly args: string[];
  readonly cwd: string;
  readonly preset: string;
  readonly pattern: string | undefined;
  readonly pid: number;
  readonly createdAt: number;
  /** Its turns go to the on-disk history. */
  readonly persisted: boolean;
  /** Read back from the history after a daemon restart (its process is not re-attached). */
  readonly restored: boolean;
  /** Restored, and it was running when the daemon ended: it ended with the daemon. */
  private readonly endedWithDaemon: boolean;
  /** The git worktree it runs in, and its counted changes; null: none of its own. */
  readonly worktree: SessionWorktree | null;
  /** Its agent's channel was wanted and not wired: which agent, and why. */
  private readonly agentOff: { agent: AgentName; reason: string } | undefined;
  /** Where its output goes: the clients, then the screen model and the detector in the worker. */
  readonly output: OutputPipeline;
  state: SessionState = 'starting';
  /** What the detector (or wrapper) said last, before a too-narrow screen's `blocked` was doubted. */
  private reported: SessionState = 'starting';
  /** While blocked: the question on its screen and its choices (null: none read). */
  private question: Menu | null = null;
  /** The attached client whose size the session has now (null: none, or set by `clippy resize`). */
  private sizedBy: SessionClient | null = null;
  /** Counts size takes, to find the latest active driving client (tmux's `latest`). */
  private sizeClock = 0;
  /** The size before a viewer's fit (`resize` with `fit`), given back when it leaves. */
  private sizeBeforeFit: { cols: number; rows: number } | null = null;
  exitedAt: number | null = null;
  exitCode: number | null = null;
  exitSignal: string | null = null;
  /** Total PTY output bytes seen (forwarded) since the session started. */
  outputBytes = 0;
  /** Total input bytes written to the PTY (typed, sent, injected): routes tell theirs from others'. */
  inputBytes = 0;
  /** The newest turn shown to a person (attach, show, a page or editor on it): later ones are unread. */
  private readSeq = 0;

  // --- turn detection seam ---
  /** The session's detector and turn ring, built with it; null without detection. */
  readonly turns: SessionTurns | null;

  /** Who is attached, and their flow control: the broker's one record of attachments. */
  private readonly attachments = new Map<SessionClient, Attachment>();
  private readonly pty: PtyProcess | null;
  private readonly flowLimits: FlowLimits;
  private readonly killGraceMs: number;
  private readonly observer: SessionObserver;
  private paused = false;
  private killTimer: NodeJS.Timeout | null = null;
  private exitWaiters: (() => void)[] = [];
  /** Waits on the session (an injection, a progress feed, the input-wait watch): see onActivity. */
  private readonly activity = new Set<() => void>();
  private disposed = false;

  constructor(params: SessionParams) {
    this.id = params.id;
    this.name = params.name;
    this.kind = params.kind;
    this.command = params.command;
    this.args = params.args;
    this.cwd = params.cwd;
    this.preset = params.preset;
    this.pattern = params.pattern;
    this.pid = params.pid;
    this.pty = params.pty;
    this.flowLimits = params.flowLimits;
    this.killGraceMs = params.killGraceMs;
    this.observer = params.observer;
    this.persisted = params.persisted ?? false;
    this.restored = params.restored !== undefined;
    this.endedWithDaemon = params.restored?.endedWithDaemon ?? false;
    this.worktree = params.worktree ? new SessionWorktree(params.worktree) : null;
    this.agentOff = params.agentOff;
    this.createdAt = params.restored?.createdAt ?? params.createdAt ?? Date.now();
    if (params.restored) {
      this.exitedAt = params.restored.exitedAt;
      this.exitCode = params.restored.exitCode;
      this.exitSignal = params.restored.exitSignal;
      this.state = 'exited';
    }
    this.output = new OutputPipeline(params.cols, params.rows, {
      deliver: (chunks, bytes) => this.sendOutput(chunks, bytes),
      flowChanged: () => this.updateFlow(),
      answer: (data) => this.answerQuery(data),
    });
    this.turns = params.turns(this);
    if (this.pty) {
      this.pty.onData((chunk) => this.handleOutput(chunk));
      this.pty.onExit((exit) => this.handleExit(exit));
    }
  }

  get live(): boolean {
    return this.exitedAt === null;
  }

  get cols(): number {
    return this.output.cols;
  }

  get rows(): number {
    return this.output.rows;
  }

  /** Completed turns seen since the session started (evicted ones included). */
  get turnCount(): number {
    return this.turns?.ring.count ?? 0;
  }

  get clientCount(): number {
    return this.attachments.size;
  }

  info(): SessionInfo {
    return {
      session: this.id,
      name: this.name,
      kind: this.kind,
      pid: this.pid,
      has_turn: this.turnCount > 0,
      turn_count: this.turnCount,
      state: this.state,
      command: this.command,
      args: this.args,
      cwd: this.cwd,
      preset: this.preset,
      cols: this.cols,
      rows: this.rows,
      clients: this.attachments.size,
      created_at: this.createdAt,
      exited_at: this.exitedAt,
      exit_code: this.exitCode,
      exit_signal: this.exitSignal,
      // Only when it stopped: a session with working detection looks as it always did.
      ...(this.turns?.detectionStopped ? { detection_stopped: this.turns.detectionStopped } : {}),
      ...(this.persisted ? { persisted: true } : {}),
      ...(this.restored ? { restored: true } : {}),
      ...(this.endedWithDaemon ? { ended_with_daemon: true } : {}),
      ...(this.menu ? { menu: this.menu } : {}),
      ...(this.worktree ? { worktree: this.worktree.info() } : {}),
      unread: this.unread,
      ...this.agentInfo(),
    };
  }

  /**
   * What the session's agent told of itself: its channel, model, tokens and cost; and, once
   * exited, whether its agent can resume the conversation (`revive`).
   */
  private agentInfo(): Partial<SessionInfo> {
    const turns = this.turns;
    if (!turns) return {};
    const off =
      !turns.channel && this.agentOff
        ? {
            agent: this.agentOff.agent,
            agent_channel: 'off' as const,
            channel_note: this.agentOff.reason,
          }
        : {};
    const latest = turns.ring.latest()?.agent;
    const resumable = turns.channel?.channel.agentSession ?? turns.ring.latestAgentSession();
    const agent = turns.channel?.channel.agent ?? turns.ring.latestAgent();
    return {
      ...(agent ? { agent } : {}),
      ...off,
      ...turns.channel?.info(),
      ...(latest?.model ? { model: latest.model } : {}),
      ...turns.ring.usage,
      ...(!this.live && this.kind === 'pty' && resumable ? { revivable: true } : {}),
    };
  }

  /** Completed turns nobody has looked at yet. */
  get unread(): number {
    // What was unread before a daemon restart is not known: a restored session claims nothing.
    if (this.restored) return 0;
    return Math.max(0, this.turnCount - this.readSeq);
  }

  /**
   * A revived session's turns read as they were in the session it replaces: what was read stays
   * read (a restored one claimed nothing unread: all its turns count as read).
   */
  inheritRead(old: Session): void {
    this.readSeq = Math.min(this.turnCount, old.restored ? old.turnCount : old.readSeq);
  }

  /** The turns up to `seq` (default: all) were shown to a person. True when that changed. */
  markRead(seq: number = this.turnCount): boolean {
    if (seq <= this.readSeq) return false;
    this.readSeq = Math.min(seq, this.turnCount);
    return true;
  }

  /** Rings the bell (BEL) in an attached client's terminal, beside the session's output. */
  bell(client: SessionClient): boolean {
    const attachment = this.attachments.get(client);
    if (!attachment) return false;
    attachment.deliverOutput(new OutputBatch(this.id, [Buffer.from(BEL)], BEL.length));
    return true;
  }

  /** The question a blocked session asks and its choices, as its screen shows them now. */
  get menu(): Menu | null {
    return this.state === 'blocked' ? this.question : null;
  }

  /** The turn detector read the question on the screen (reported before `blocked`). */
  setMenu(menu: Menu | null): void {
    this.question = menu;
  }

  /**
   * Calls `listener` after every output chunk, state change, news of the session's detector (a
   * submit taken, a new screen read) and the end of the session: the waits on a session ("until
   * idle", "until output follows Enter") look again then. Returns the unsubscribe.
   */
  onActivity(listener: () => void): () => void {
    this.activity.add(listener);
    return () => this.activity.delete(listener);
  }

  /** Wakes every wait on the session (see onActivity). */
  notifyActivity(): void {
    // Called for every output chunk: nothing to copy when nobody listens (the usual case).
    if (this.activity.size === 0) return;
    for (const listener of [...this.activity]) listener();
  }

  /**
   * Hook: runs right after client input was written to the PTY (echo removal, Enter, Ctrl-C).
   * After, not before: the keystroke reaches the program first. It is on the echo's path (the
   * echo is read only once this returns), so the turn bookkeeping only keeps the input here and
   * runs once the echo went to the clients (OutputPipeline.takeInput): it took 42–45 us of the
   * 110 us from a key's read to its echo's write, measured with a direct attach. It sees the
   * input before any output that follows it (the PTY's output is read in a later turn of the
   * event loop). `at`: when it was written.
   */
  private onInput(data: Uint8Array, at: number): void {
    this.turns?.onInput(data, at);
  }

  /** Input bytes written and not yet taken by the PTY (injectors wait on this). */
  get pendingInputBytes(): number {
    return this.pty?.pendingWriteBytes ?? 0;
  }

  /** Resolves once at most `below` input bytes wait for the PTY (or the session ended). */
  inputTaken(below: number): Promise<void> {
    if (!this.pty || !this.live) return Promise.resolve();
    return this.pty.whenWritten(below);
  }

  /** The PTY's slave device path; undefined for wrapper sessions. */
  get ptsName(): string | undefined {
    return this.pty?.ptsName;
  }

  /** Changes the state: announced, and every wait on the session (an injection) looks again. */
  setState(state: SessionState): void {
    this.reported = state;
    // A screen too narrow to read proves no question: the program may be anywhere (busy).
    if (state === 'blocked' && this.cols < MIN_READABLE_COLS) state = 'busy';
    if (state === this.state) return;
    const previous = this.state;
    this.state = state;
    // A question ends with the state that asked it; the next one is read afresh.
    if (this.reported !== 'blocked') this.question = null;
    this.observer.stateChanged(this, previous);
    this.notifyActivity();
  }

  // --- clients ---

  /**
   * Attaches a client. Output produced from now on is held for it until `flushPending` (called
   * once the attach response carrying the replay is sent), so replay + live output are exactly
   * the session's byte stream: nothing lost, nothing twice.
   */
  async attach(
    client: SessionClient,
    mode: AttachMode,
    cols: number | undefined,
    rows: number | undefined,
    /** Where its output goes: its connection, unless the daemon writes its terminal itself. */
    sink: FlowSink = new SocketSink(client),
    /** A viewer: its size is recorded but never taken unless it asks (`resize` with `fit`). */
    ignoreSize = false,
  ): Promise<{ attachment: Attachment; replay: string }> {
    this.drop(client);
    // Output waiting in the batch goes to the clients attached before this one: the replay
    // carries it for the new client.
    this.output.flush();
    const attachment = new Attachment(mode, sink, this.flowLimits, {
      onHoldChanged: () => this.updateFlow(),
      onSlowConsumer: () => this.observer.slowConsumer(this, client),
    });
    attachment.cols = cols;
    attachment.rows = rows;
    // An observer only watches, a viewer (ignore-size) too: their size never changes the session's.
    attachment.drivesSize = mode === 'interactive' && !ignoreSize;
    this.attachments.set(client, attachment);
    if (attachment.drivesSize) this.takeSize(client, attachment);
    const replay = await this.output.snapshot();
    return { attachment, replay };
  }

  isAttached(client: SessionClient): boolean {
    return this.attachments.has(client);
  }

  /** How a client is attached (undefined: it is not). */
  attachMode(client: SessionClient): AttachMode | undefined {
    return this.attachments.get(client)?.mode;
  }

  /** Whether the daemon writes this client's terminal itself (direct attach). */
  writesTerminalOf(client: SessionClient): boolean {
    return this.attachments.get(client)?.terminal ?? false;
  }

  /** The attached clients, in the order they attached. */
  clients(): SessionClient[] {
    return [...this.attachments.keys()];
  }

  /**
   * Detaches a client that is still there: its terminal is given back if the daemon writes it,
   * then `farewell` (a `detached` push) is sent. Null if it was not attached; else resolves
   * when that is done (at once for a socket client).
   */
  detach(client: SessionClient, farewell: Buffer | null = null): Promise<void> | null {
    const attachment = this.attachments.get(client);
    if (!attachment) return null;
    this.attachments.delete(client);
    this.sizeLeft(client);
    return attachment.release(farewell);
  }

  /** Detaches every client, each told `farewell`; resolves when all were let go. */
  async detachAll(farewell: Buffer | null = null): Promise<void> {
    await Promise.all([...this.attachments.keys()].map((c) => this.detach(c, farewell)));
  }

  /**
   * Tells every client `farewell` (a `detached` push), each terminal the daemon writes given back
   * first, but keeps them attached: the daemon is stopping, and the sessions' `exit` pushes still
   * follow. Resolves when all were told.
   */
  async tellAll(farewell: Buffer): Promise<void> {
    await Promise.all([...this.attachments.values()].map((a) => a.tell(farewell)));
  }

  /** Forgets a client that is gone (its connection closed): nothing more is written to it. */
  drop(client: SessionClient): boolean {
    const attachment = this.attachments.get(client);
    if (!attachment) return false;
    this.attachments.delete(client);
    attachment.dispose();
    this.sizeLeft(client);
    return true;
  }

  /** A one-line message for every attached user (their clients show it, or the daemon writes it). */
  notice(text: string): number {
    if (this.attachments.size === 0) return 0;
    const frame = encodeFrame({
      type: 'notice',
      id: 0,
      session: this.id,
      text,
    } satisfies Push<'notice'>);
    for (const a of this.attachments.values()) a.notice(text, frame);
    return this.attachments.size;
  }

  /** The size a client told (attach, resize), else the session's. */
  clientSize(client: SessionClient): { cols: number; rows: number } {
    const a = this.attachments.get(client);
    return { cols: a?.cols ?? this.cols, rows: a?.rows ?? this.rows };
  }

  ack(client: SessionClient, bytes: number): boolean {
    const attachment = this.attachments.get(client);
    if (!attachment) return false;
    attachment.ack(bytes);
    return true;
  }

  // --- input and size ---

  /** Writes client input to the PTY; a sender that drives the size makes it the session's. */
  input(data: Uint8Array | string, from?: SessionClient): void {
    if (!this.pty || !this.live) return;
    const attachment = from ? this.attachments.get(from) : undefined;
    // Typing makes a driving client the latest active (tmux's `window-size latest`); the one
    // whose size the session has already is (a keystroke then costs no size bookkeeping).
    if (from && attachment?.drivesSize && this.sizedBy !== from) this.takeSize(from, attachment);
    const bytes = typeof data === 'string' ? Buffer.from(data) : data;
    // The time is taken before the write: the program may take the input, act on it and
    // record the time it did before this thread runs again (a loaded machine preempts it), and
    // a turn must never seem to start after its agent recorded its prompt.
    const at = Date.now();
    this.pty.write(bytes);
    this.inputBytes += bytes.length;
    this.onInput(bytes, at);
  }

  /**
   * Answers a query the program wrote to its terminal (device attributes, cursor position, mode
   * reports), as a terminal would, while no interactive client's terminal is there to answer
   * (tmux answers them itself). Programs wait for these: Claude Code asks for the device
   * attributes after a paste and reads the Enter that follows as part of the answer it awaits;
   * Codex asks for the cursor position at start. Written straight to the PTY: it is no input of
   * the user's, so turn detection never sees it.
   */
  private answerQuery(data: string): void {
    if (!this.pty || !this.live) return;
    for (const a of this.attachments.values()) if (a.mode === 'interactive') return;
    this.pty.write(Buffer.from(data, 'utf8'));
  }

  /**
   * A client's size (`resize`), as tmux's `window-size latest`: the size of the latest active
   * client that drives it. An attached client's size is recorded; it becomes the session's when
   * the client drives the size (interactive, not ignore-size) or asks for it (`fit`: "fit this
   * session to my window", once). A client that is not attached (`clippy resize`) sets it as
   * tmux's `resize-window` does, until a driving client is active again.
   */
  resize(cols: number, rows: number, from?: SessionClient, fit = false): void {
    const attachment = from ? this.attachments.get(from) : undefined;
    if (!from || !attachment) {
      this.sizedBy = null;
      this.sizeBeforeFit = null;
      this.applySize(cols, rows);
      return;
    }
    attachment.cols = cols;
    attachment.rows = rows;
    if (attachment.drivesSize || fit) this.takeSize(from, attachment);
  }

  /** The client is now the one whose size the session has. */
  private takeSize(client: SessionClient, attachment: Attachment): void {
    if (attachment.cols === undefined || attachment.rows === undefined) return;
    // A viewer's fit is a loan: the size it replaced comes back when it leaves (a driver's size
    // is the session's own).
    if (attachment.drivesSize) this.sizeBeforeFit = null;
    else this.sizeBeforeFit ??= { cols: this.cols, rows: this.rows };
    attachment.sizedAt = ++this.sizeClock;
    this.sizedBy = client;
    this.applySize(attachment.cols, attachment.rows);
  }

  /**
   * The client whose size the session has is gone: the size returns to the remaining driving
   * client active most recently (tmux's rule); with none, to the size a viewer's fit replaced
   * (a quick look from a phone must not leave an agent 46 columns wide), else it stays.
   */
  private sizeLeft(client: SessionClient): void {
    if (this.sizedBy !== client) return;
    this.sizedBy = null;
    let next: [SessionClient, Attachment] | null = null;
    for (const entry of this.attachments) {
      const a = entry[1];
      if (!a.drivesSize || a.cols === undefined || a.rows === undefined) continue;
      if (!next || a.sizedAt > next[1].sizedAt) next = entry;
    }
    const before = this.sizeBeforeFit;
    this.sizeBeforeFit = null;
    if (next) this.takeSize(next[0], next[1]);
    else if (before) this.applySize(before.cols, before.rows);
  }

  /** Sets the size of the PTY and the screen, and says so (`session_resized`). */
  private applySize(cols: number, rows: number): void {
    if (cols === this.cols && rows === this.rows) return;
    this.output.resize(cols, rows);
    if (this.live) this.pty?.resize(cols, rows);
    this.observer.resized?.(this);
    // Wide enough again: a question doubted while it was too narrow stands.
    if (this.live && this.reported === 'blocked' && this.state !== 'blocked')
      this.setState(this.reported);
  }

  // --- process ---

  /** Signals the process group; SIGKILL follows after the grace period if it is still running. */
  kill(signal: NodeJS.Signals): void {
    if (!this.pty || !this.live) return;
    this.pty.killGroup(signal);
    if (signal !== 'SIGKILL' && !this.killTimer) {
      this.killTimer = setTimeout(() => {
        this.killTimer = null;
        if (this.live) this.pty?.killGroup('SIGKILL');
      }, this.killGraceMs);
      this.killTimer.unref();
    }
  }

  /** SIGKILL to the whole group, also when the leader is gone (stragglers). */
  killGroupNow(): void {
    this.pty?.killGroup('SIGKILL');
  }

  waitExit(): Promise<void> {
    if (!this.live) return Promise.resolve();
    return new Promise((resolve) => this.exitWaiters.push(resolve));
  }

  /** Ends a session that has no PTY (a wrapper deregistered or disconnected). */
  markExited(exitCode: number | null = null, signal: string | null = null): void {
    if (!this.live || this.pty) return;
    this.handleExit({ exitCode, signal });
  }

  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    if (this.killTimer) clearTimeout(this.killTimer);
    this.killTimer = null;
    for (const client of [...this.attachments.keys()]) this.drop(client);
    this.turns?.dispose();
    this.pty?.dispose();
    this.output.dispose();
    this.activity.clear();
    for (const w of this.exitWaiters) w();
    this.exitWaiters = [];
  }

  // --- internals ---

  private handleOutput(chunk: Buffer): void {
    this.outputBytes += chunk.length;
    this.output.write(chunk);
    this.notifyActivity();
  }

  private sendOutput(chunks: Buffer[], bytes: number): void {
    if (this.attachments.size === 0) return;
    // The frame is encoded once, shared by every socket client, and only if there is one: a
    // terminal the daemon writes itself takes the bytes as they are.
    const batch = new OutputBatch(this.id, chunks, bytes);
    for (const a of this.attachments.values()) a.deliverOutput(batch);
  }

  private handleExit(exit: PtyExit): void {
    if (!this.live) return;
    this.exitedAt = Date.now();
    this.exitCode = exit.exitCode;
    this.exitSignal = exit.signal;
    if (this.killTimer) clearTimeout(this.killTimer);
    this.killTimer = null;
    if (this.paused) this.paused = false;
    // Every byte of output reaches the clients before the exit.
    this.output.flush();
    const frame = encodeFrame({
      type: 'exit',
      id: 0,
      session: this.id,
      exit_code: exit.exitCode,
      signal: exit.signal,
    } satisfies Push<'exit'>);
    for (const a of this.attachments.values()) a.deliverExit(frame);
    // A turn in progress is dropped (a crash is no turn); waits for the next turn fail.
    this.turns?.end();
    this.setState('exited');
    this.observer.exited(this);
    this.pty?.dispose();
    this.notifyActivity();
    const waiters = this.exitWaiters;
    this.exitWaiters = [];
    for (const w of waiters) w();
  }

  /** Re-evaluates whether the PTY must be paused (a consumer of its output changed its mind). */
  updateFlow(): void {
    if (!this.pty || !this.live) return;
    // Paused while the pipeline worker (screen model, detection) is far behind, or while an
    // interactive client is.
    let hold = this.output.overloaded;
    for (const a of this.attachments.values()) if (a.holding) hold = true;
    if (hold && !this.paused) {
      this.paused = true;
      this.pty.pause();
    } else if (!hold && this.paused) {
      this.paused = false;
      this.pty.resume();
    }
  }
}

import { watch, type FSWatcher } from 'node:fs';
import { dirname } from 'node:path';
import type { AgentTurn } from '@clippy/protocol';
import { defined } from '../records.js';
import { PROMPT_SLACK_MS } from '../turn-join.js';
import type {
  AgentChannel,
  ChannelContext,
  ChannelTurn,
  ChannelUpdate,
  ScreenTurnInfo,
} from '../types.js';
import { chatFileSuffix, findChatFiles, GeminiChat, type ChatTurn } from './chat-file.js';

/**
 * Longest a read waits for Gemini to record the turn the screen completed: measured on 0.61.0
 * it has written the prompt and the answer before it draws its prompt again; only a screen
 * that completed a turn early waits, for what Gemini writes next.
 */
export const GEMINI_ANSWER_WAIT_MS = 5_000;
/** Its own commands (/help) and shell lines (!ls) never reach the model: Gemini records no turn. */
const NOT_FOR_THE_MODEL = /^\s*[/!]/u;

/** Gemini CLI's home: `$GEMINI_CLI_HOME`, else `$HOME`. */
export function geminiHome(env: Record<string, string | undefined>): string {
  return env.GEMINI_CLI_HOME || env.HOME || '';
}

/**
 * Gemini CLI's channel (checked on 0.61.0) is its chat file, read when the screen completes a
 * turn. Its hooks cannot be wired for one session: it reads them only from settings files,
 * the user's own or system files that must belong to root (others are skipped with a warning
 * on its screen). clippy starts it with `--session-id` to know which chat file is this
 * session's.
 */
export class GeminiChannel implements AgentChannel {
  readonly agent = 'gemini' as const;
  /** The session's chat files read so far (a resumed session writes more than one). */
  private readonly chats = new Map<string, GeminiChat>();
  /** Every chat file looked at, and whether it is this session's. */
  private readonly looked = new Map<string, boolean>();
  private readonly home: string;

  constructor(
    ctx: ChannelContext,
    private readonly session: string | undefined = ctx.agentSession,
  ) {
    this.home = geminiHome(ctx.env);
  }

  get agentSession(): string | undefined {
    return this.session;
  }

  onEvent(event: string): Promise<ChannelUpdate> {
    return Promise.resolve({ kind: 'ignored', why: `Gemini CLI sends no ${event} to clippy` });
  }

  expectsReport(): boolean {
    return false;
  }

  async readTurn(turn: ScreenTurnInfo): Promise<ChannelTurn | null> {
    if (!this.session) throw new Error('the Gemini CLI session ID is unknown');
    let chats = await this.chatsOfSession();
    if (chats.length === 0)
      throw new Error(`no chat file of session ${this.session} under ${this.home}`);
    const deadline = Date.now() + GEMINI_ANSWER_WAIT_MS;
    // A screen that completed the turn before Gemini recorded it (its prompt or its answer)
    // waits for what Gemini writes next; a prompt Gemini never records is not waited for.
    const forModel = turn.prompt.trim() !== '' && !NOT_FOR_THE_MODEL.test(turn.prompt);
    const suffix = chatFileSuffix(this.session);
    const changes = new FileChanges(dirname(chats[0]!.path), (f) => f.endsWith(suffix));
    let t: ChatTurn | undefined;
    try {
      for (;;) {
        // Armed before the read: a line written while it reads is a change still to come.
        const seen = changes.count;
        t = await this.latestOfTurn(chats, turn);
        if (t && t.answer !== null) break;
        if (!t && !forModel) break;
        if (Date.now() >= deadline) break;
        await changes.after(seen, deadline - Date.now());
        chats = await this.chatsOfSession();
      }
    } finally {
      changes.close();
    }
    if (!t || t.answer === null) return null;
    return {
      answer: t.answer,
      prompt: t.prompt,
      record: defined({
        agent: 'gemini',
        via: 'gemini-chat',
        session_id: this.session,
        turn_id: t.messageId,
        model: t.model,
        input_tokens: t.inputTokens,
        output_tokens: t.outputTokens,
        completed_at: t.at,
      }) as AgentTurn,
    };
  }

  dispose(): void {
    this.chats.clear();
  }

  /** The session's chat files, each followed from where it was last read. */
  private async chatsOfSession(): Promise<GeminiChat[]> {
    const paths = await findChatFiles(this.home, this.session!, this.looked);
    for (const path of paths) if (!this.chats.has(path)) this.chats.set(path, new GeminiChat(path));
    return paths.map((p) => this.chats.get(p)!);
  }

  /** The screen's turn as one of the chat files records it (the one it was written to). */
  private async latestOfTurn(
    chats: GeminiChat[],
    turn: ScreenTurnInfo,
  ): Promise<ChatTurn | undefined> {
    let found: ChatTurn | undefined;
    for (const chat of chats) {
      const t = await chat.latest();
      if (!this.ofTurn(t, turn)) continue;
      // The latest recorded prompt wins (a file resumed twice holds only older ones).
      if (!found || (t!.promptAt ?? 0) >= (found.promptAt ?? 0)) found = t;
    }
    return found;
  }

  /** Whether the chat's latest prompt was recorded during the screen's turn (not an older one). */
  private ofTurn(t: ChatTurn | undefined, turn: ScreenTurnInfo): boolean {
    return t !== undefined && (t.promptAt ?? 0) >= turn.startedAt - PROMPT_SLACK_MS;
  }
}

/**
 * Counts changes to the files of a folder that `which` names (an append, a new file, or a file
 * replaced by a rename: Gemini rewrites an unreadable chat file that way).
 */
class FileChanges {
  count = 0;
  private readonly watcher: FSWatcher | null;
  private wake: (() => void) | null = null;

  constructor(dir: string, which: (file: string) => boolean) {
    let watcher: FSWatcher | null = null;
    try {
      watcher = watch(dir, (_event, file) => {
        if (file !== null && !which(file)) return;
        this.count++;
        this.wake?.();
      });
      watcher.on('error', () => this.wake?.());
    } catch {
      // Not watchable: each wait then lasts until its deadline.
    }
    this.watcher = watcher;
  }

  /** Resolves once a change after the `seen`th came, or after `ms`. */
  after(seen: number, ms: number): Promise<void> {
    if (this.count > seen) return Promise.resolve();
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.wake = null;
        resolve();
      };
      const timer = setTimeout(done, Math.max(0, ms));
      this.wake = done;
    });
  }

  close(): void {
    this.watcher?.close();
    this.wake?.();
  }
}

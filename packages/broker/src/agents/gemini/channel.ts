import { watch, type FSWatcher } from 'node:fs';
import type { AgentTurn } from '@clippy/protocol';
import { defined } from '../records.js';
import type {
  AgentChannel,
  ChannelContext,
  ChannelTurn,
  ChannelUpdate,
  ScreenTurnInfo,
} from '../types.js';
import { findChatFile, GeminiChat, type ChatTurn } from './chat-file.js';

/** Longest a read waits for Gemini to write the answer of the turn the screen completed. */
export const GEMINI_ANSWER_WAIT_MS = 5_000;
/**
 * Clock slack when matching the chat's prompt to the screen's turn: Gemini records the prompt
 * after clippy saw its Enter, on the same clock; this only absorbs rounding.
 */
const PROMPT_SLACK_MS = 50;

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
  private chat: GeminiChat | null = null;
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
    if (!this.chat) {
      const path = await findChatFile(this.home, this.session);
      if (!path) throw new Error(`no chat file of session ${this.session} under ${this.home}`);
      this.chat = new GeminiChat(path);
    }
    const chat = this.chat;
    const deadline = Date.now() + GEMINI_ANSWER_WAIT_MS;
    let t = await chat.latest();
    // The screen may show the answer before the file has it: wait for the file to change.
    while (this.ofTurn(t, turn) && t!.answer === null && Date.now() < deadline) {
      await changed(chat.path, deadline - Date.now());
      t = await chat.latest();
    }
    if (!this.ofTurn(t, turn) || t!.answer === null) return null;
    return {
      answer: t!.answer,
      prompt: t!.prompt,
      record: defined({
        agent: 'gemini',
        via: 'gemini-chat',
        session_id: this.session,
        turn_id: t!.messageId,
        model: t!.model,
        input_tokens: t!.inputTokens,
        output_tokens: t!.outputTokens,
        completed_at: t!.at,
      }) as AgentTurn,
    };
  }

  dispose(): void {
    this.chat = null;
  }

  /** Whether the chat's latest prompt was recorded during the screen's turn (not an older one). */
  private ofTurn(t: ChatTurn | undefined, turn: ScreenTurnInfo): boolean {
    return t !== undefined && (t.promptAt ?? 0) >= turn.startedAt - PROMPT_SLACK_MS;
  }
}

/** Resolves when the file changes, or after `ms`. */
function changed(path: string, ms: number): Promise<void> {
  return new Promise((resolve) => {
    let watcher: FSWatcher | null = null;
    const done = () => {
      clearTimeout(timer);
      watcher?.close();
      resolve();
    };
    const timer = setTimeout(done, Math.max(0, ms));
    try {
      watcher = watch(path, done);
    } catch {
      done();
    }
  });
}

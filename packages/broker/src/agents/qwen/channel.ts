import type { AgentTurn } from '@clippy/protocol';
import { defined, parsePayload, str } from '../records.js';
import { readUntil } from '../record-wait.js';
import { Serial } from '../serial.js';
import { samePrompt } from '../turn-join.js';
import type { AgentChannel, ChannelContext, ChannelUpdate, ScreenTurnInfo } from '../types.js';
import { QwenTranscript, type QwenTranscriptTurn } from './transcript.js';

/**
 * Longest the `Stop` report waits for the transcript to hold the turn's answer: Qwen Code
 * queues its transcript writes and runs the hook at once, so the answer's line may land a
 * moment after the hook's process has started and reported (in practice it is already there).
 */
export const QWEN_TRANSCRIPT_WAIT_MS = 2_000;

/** What Qwen Code's `Stop` hook says when the turn's last model message had no text. */
const NO_TEXT = '[no response text]';

/**
 * Qwen Code's channel (checked on 0.24.4). Its hooks' stdin JSON names the session and its
 * transcript (`session_id`, `transcript_path`): `SessionStart` at start (and on a resume),
 * `UserPromptSubmit` with the prompt (`prompt`, and `submitted_prompt` as typed) and its
 * `prompt_id` when it takes one, `Stop` when a turn ends with `last_assistant_message` (the
 * last model message's text, exact), `StopFailure` when an API error ends it. No hook runs on
 * an Esc interrupt. The answer's tokens and model are read from the transcript's record of the
 * turn, whose answer must be the hook's.
 */
export class QwenChannel implements AgentChannel {
  readonly agent = 'qwen' as const;
  private session: string | undefined;
  private transcript: QwenTranscript | null = null;
  /**
   * The prompt it took, by its `prompt_id` (the latest only: a turn ends before the next): as
   * typed, and as sent to the model (an `@file` reference expanded).
   */
  private prompt: { id: string | undefined; typed: string; sent: string } | null = null;
  /** The transcript is read by one caller at a time. */
  private readonly reads = new Serial();

  constructor(ctx: ChannelContext) {
    this.session = ctx.agentSession;
  }

  get agentSession(): string | undefined {
    return this.session;
  }

  async onEvent(event: string, payload: string): Promise<ChannelUpdate> {
    const p = parsePayload('qwen', event, payload);
    const session = str(p.session_id);
    if (session) this.session = session;
    // Empty when the user turned chat recording off: the hook's copy is all there is.
    const path = str(p.transcript_path);
    if (path && path !== this.transcript?.path) this.transcript = new QwenTranscript(path);
    switch (event) {
      case 'SessionStart':
        return { kind: 'started' };
      case 'UserPromptSubmit': {
        const sent = str(p.prompt) ?? '';
        const typed = str(p.submitted_prompt) ?? sent;
        this.prompt = { id: str(p.prompt_id), typed, sent };
        return { kind: 'prompt', prompt: typed };
      }
      case 'Stop':
        return { kind: 'turn', turn: await this.stop(str(p.prompt_id), p.last_assistant_message) };
      case 'StopFailure':
        return {
          kind: 'turn',
          turn: {
            answer: null,
            ...this.promptOf(str(p.prompt_id)),
            record: this.record('qwen-stop-hook', str(p.prompt_id), {}),
          },
        };
      default:
        return { kind: 'ignored', why: `Qwen Code event ${event} is not one clippy reads` };
    }
  }

  /**
   * Every prompt for the model is reported (its hooks are clippy's own, wired at start): from the
   * first, whose `SessionStart` and `UserPromptSubmit` may still be on their way when a quick
   * answer is on screen (each hook starts a node process: seconds on a loaded machine). An
   * interrupt runs no hook, and its own commands (/help) and shell lines (!ls) never reach the
   * model. Hooks that never come (the user turned all hooks off) cost one wait, then the channel
   * is silent and the screen's turns are stored at once.
   */
  expectsReport(turn: ScreenTurnInfo): boolean {
    return !turn.interrupted && /\S/u.test(turn.prompt) && !/^\s*[/!]/u.test(turn.prompt);
  }

  dispose(): void {
    this.transcript = null;
  }

  /** The turn `Stop` reported: the transcript's record of it when that agrees, else the hook's. */
  private async stop(promptId: string | undefined, said: unknown) {
    const hookAnswer = typeof said === 'string' && said !== NO_TEXT ? said : null;
    const taken = this.taken(promptId);
    const prompt = taken ? { prompt: taken.typed } : {};
    const transcript = this.transcript;
    const t = transcript
      ? await this.reads.run(() => this.untilRecorded(transcript, hookAnswer))
      : null;
    // The transcript's latest turn is this one: the same answer, for the prompt taken.
    if (t && (!taken || samePrompt(t.prompt, taken.sent) || samePrompt(t.prompt, taken.typed)))
      return {
        answer: t.answer,
        prompt: taken?.typed ?? t.prompt,
        record: this.record('qwen-transcript', promptId, {
          model: t.model,
          input_tokens: t.inputTokens,
          output_tokens: t.outputTokens,
          completed_at: t.at ?? Date.now(),
        }),
      };
    return { answer: hookAnswer, ...prompt, record: this.record('qwen-stop-hook', promptId, {}) };
  }

  /**
   * The transcript's latest turn once its answer is the hook's (readUntil: at most
   * QWEN_TRANSCRIPT_WAIT_MS); null when it never is.
   */
  private async untilRecorded(
    transcript: QwenTranscript,
    answer: string | null,
  ): Promise<QwenTranscriptTurn | null> {
    const agrees = (t: QwenTranscriptTurn | undefined) => t !== undefined && t.answer === answer;
    const t = await readUntil(
      transcript.path,
      () => transcript.latest(),
      agrees,
      QWEN_TRANSCRIPT_WAIT_MS,
    );
    return agrees(t) ? t! : null;
  }

  /** The prompt taken for `promptId` (UserPromptSubmit), when the channel saw it. */
  private taken(promptId: string | undefined) {
    const p = this.prompt;
    return p && (promptId === undefined || p.id === undefined || p.id === promptId) ? p : null;
  }

  private promptOf(promptId: string | undefined): { prompt?: string } {
    const p = this.taken(promptId);
    return p ? { prompt: p.typed } : {};
  }

  private record(via: string, promptId: string | undefined, extra: Partial<AgentTurn>): AgentTurn {
    return defined({
      agent: 'qwen',
      via,
      session_id: this.session,
      turn_id: promptId,
      completed_at: Date.now(),
      ...extra,
    }) as AgentTurn;
  }
}

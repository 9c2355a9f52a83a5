import type { AgentTurn } from '@clippy/protocol';
import { defined, parsePayload, str } from '../records.js';
import { Serial } from '../serial.js';
import { PROMPT_SLACK_MS, samePrompt } from '../turn-join.js';
import type {
  AgentChannel,
  ChannelContext,
  ChannelTurn,
  ChannelUpdate,
  ScreenTurnInfo,
} from '../types.js';
import { readUntil } from '../record-wait.js';
import { ClaudeTranscript, type TranscriptTurn } from './transcript.js';

/**
 * Longest the Stop hook's report waits for the transcript to hold its turn's answer (with its
 * model and tokens): Claude Code writes it shortly after it started the hook, but a loaded
 * machine (a full test run, load 25) was seen to take over 3 s. Past this the report's copy of
 * the answer is never taken: the screen's text is (issue 46: a report's words never become a
 * turn's text). Kept well under the join's CHANNEL_WAIT_MS, which a late hook start shares.
 * A transcript that holds the answer ends the wait at once (file events).
 */
export const CLAUDE_RECORD_WAIT_MS = 6_000;

/** Whether the transcript's turn holds the answer the Stop hook reported (its copy is trimmed). */
function holds(
  t: TranscriptTurn,
  hookAnswer: string | undefined,
): t is TranscriptTurn & { answer: string } {
  return t.answer !== null && (hookAnswer === undefined || t.answer.trim() === hookAnswer.trim());
}

/**
 * Claude Code's channel (checked on 2.1.197). Its hooks' stdin JSON names the session and its
 * transcript (`session_id`, `transcript_path`): `SessionStart` at start (and on /clear or a
 * resume), `UserPromptSubmit` with the prompt when it takes one, `Stop` when a turn ends with
 * `last_assistant_message` (its trailing newline trimmed), `StopFailure` when an API error ends
 * it. The answer is read exactly from the transcript (the last assistant message of the
 * prompt's turn, with its tokens and model), checked against the hook's copy.
 */
export class ClaudeChannel implements AgentChannel {
  readonly agent = 'claude' as const;
  private session: string | undefined;
  private transcript: ClaudeTranscript | null = null;
  /** When the agent last took a prompt (a report will follow unless it is interrupted). */
  private promptAt: number | null = null;
  /** The prompt whose turn was reported already (by the transcript or the Stop hook): once. */
  private delivered: string | undefined;
  /** The transcript is read by one caller at a time (the hook's events, the screen's turns). */
  private readonly reads = new Serial();

  constructor(ctx: ChannelContext) {
    this.session = ctx.agentSession;
  }

  get agentSession(): string | undefined {
    return this.session;
  }

  async onEvent(event: string, payload: string): Promise<ChannelUpdate> {
    const p = parsePayload('claude', event, payload);
    const session = str(p.session_id);
    if (session) this.session = session;
    const path = str(p.transcript_path);
    if (path && path !== this.transcript?.path) this.transcript = new ClaudeTranscript(path);
    switch (event) {
      case 'SessionStart':
        return { kind: 'started' };
      case 'UserPromptSubmit':
        this.promptAt = Date.now();
        return { kind: 'prompt', prompt: str(p.prompt) ?? '' };
      case 'Stop':
        return this.stop(str(p.prompt_id), str(p.last_assistant_message));
      case 'StopFailure':
        this.promptAt = null;
        return {
          kind: 'turn',
          turn: { answer: null, record: this.record('claude-stop-hook', str(p.prompt_id), {}) },
        };
      default:
        return { kind: 'ignored', why: `Claude Code event ${event} is not one clippy reads` };
    }
  }

  expectsReport(turn: ScreenTurnInfo): boolean {
    if (turn.interrupted) return false;
    // Claude took a prompt during the turn: its Stop follows.
    if (this.promptAt !== null && this.promptAt >= turn.startedAt) return true;
    // Its hook may not have run yet (a loaded machine starts node slowly) when the screen looked
    // done early: once the channel is known to work, a prompt for the model is reported.
    // Its own commands (/help) and shell lines (!ls) never reach the model: nothing comes.
    return this.session !== undefined && !/^\s*[/!]/u.test(turn.prompt);
  }

  recordPath(): string | undefined {
    return this.transcript?.path;
  }

  async recorded(turn: ScreenTurnInfo): Promise<ChannelTurn | null> {
    const transcript = this.transcript;
    const t = transcript ? await this.reads.run(() => transcript.latest()) : undefined;
    if (!t?.ended || t.answer === null || t.promptId === this.delivered) return null;
    // The transcript's latest turn must be the screen's: taken during it, for its prompt.
    if ((t.promptAt ?? 0) < turn.startedAt - PROMPT_SLACK_MS || !samePrompt(t.prompt, turn.prompt))
      return null;
    this.delivered = t.promptId;
    this.promptAt = null;
    return this.transcriptTurn(t, 'claude-transcript');
  }

  dispose(): void {
    this.transcript = null;
  }

  /**
   * A Stop report: the turn as the transcript records it. The transcript is the record: the
   * report only says which turn ended, and its copy of the answer is never the turn's text.
   * Where they disagree (the transcript gives another answer, or none), the transcript wins and
   * the turn says so (`note`): a report from anything but the agent cannot put words in it.
   */
  private async stop(
    promptId: string | undefined,
    hookAnswer: string | undefined,
  ): Promise<ChannelUpdate> {
    this.promptAt = null;
    if (promptId !== undefined && promptId === this.delivered)
      return { kind: 'ignored', why: `turn ${promptId} was read from the transcript already` };
    const transcript = this.transcript;
    const waitedFrom = Date.now();
    const t =
      promptId && transcript
        ? await this.recordedTurn(transcript, promptId, hookAnswer)
        : undefined;
    // Read from the transcript meanwhile (its end was written while this one waited).
    if (promptId !== undefined && promptId === this.delivered)
      return { kind: 'ignored', why: `turn ${promptId} was read from the transcript already` };
    // The report says which turn ended; its words never become the text: the transcript's are.
    if (t?.answer != null) {
      this.delivered = promptId;
      const turn = this.transcriptTurn(t, 'claude-transcript');
      if (!holds(t, hookAnswer))
        turn.note = `the agent's Stop report for its turn ${promptId} gave another answer than its transcript: the transcript's is kept`;
      return { kind: 'turn', turn };
    }
    const turn = this.transcriptTurn(
      { ...t, promptId: promptId ?? '', answer: null },
      'claude-stop-hook',
    );
    // Which record was missing, and for how long it was waited for: the note is what a log or
    // `clippy show --json` has to tell a screen-read first answer apart.
    const missing = !transcript
      ? 'no transcript was named to clippy'
      : !promptId
        ? 'the Stop report named no turn'
        : t === undefined
          ? `the agent's transcript holds no turn ${promptId} after ${Date.now() - waitedFrom} ms`
          : `the agent's transcript holds no answer for its turn ${promptId} after ${Date.now() - waitedFrom} ms`;
    turn.note = `${missing}: the Stop report's copy is not used, the text is the screen's`;
    // The report says there is an answer: the transcript may still get it.
    if (transcript && promptId && hookAnswer?.trim()) turn.answerToCome = true;
    return { kind: 'turn', turn };
  }

  /**
   * The transcript's record of the turn of `promptId`, waited for: Claude Code runs its Stop
   * hooks before it has written the turn's answer to the transcript (2.1.197: at the hook's
   * start the transcript held only the prompt, or did not exist yet on the first turn), and the
   * answer's model and tokens are only there. Its end (`turn_duration`) may come before the
   * answer too (seen once, a session's first turn): while the report says there is an answer,
   * an end without one is not the record yet. Waits at most CLAUDE_RECORD_WAIT_MS (readUntil);
   * whatever the transcript holds by then is returned.
   */
  private recordedTurn(
    transcript: ClaudeTranscript,
    promptId: string,
    hookAnswer: string | undefined,
  ): Promise<TranscriptTurn | undefined> {
    return readUntil(
      transcript.path,
      () => this.reads.run(() => transcript.turn(promptId)),
      (t) =>
        !!t && (holds(t, hookAnswer) || (t.ended && (t.answer !== null || !hookAnswer?.trim()))),
      CLAUDE_RECORD_WAIT_MS,
    );
  }

  /** A turn as the transcript (or the Stop hook's copy of its answer) gives it. */
  private transcriptTurn(
    t: Partial<TranscriptTurn> & { promptId: string; answer: string | null },
    via: string,
  ): ChannelTurn {
    return {
      answer: t.answer,
      ...(t.prompt !== undefined ? { prompt: t.prompt } : {}),
      record: this.record(via, t.promptId || undefined, {
        model: t.model,
        input_tokens: t.inputTokens,
        output_tokens: t.outputTokens,
        completed_at: t.at ?? Date.now(),
      }),
    };
  }

  private record(via: string, promptId: string | undefined, extra: Partial<AgentTurn>): AgentTurn {
    return defined({
      agent: 'claude',
      via,
      session_id: this.session,
      turn_id: promptId,
      completed_at: Date.now(),
      ...extra,
    }) as AgentTurn;
  }
}

import type { AgentTurn } from '@clippy/protocol';
import { defined } from '../records.js';
import { readUntil } from '../record-wait.js';
import { PROMPT_SLACK_MS, samePrompt } from '../turn-join.js';
import type {
  AgentChannel,
  ChannelContext,
  ChannelTurn,
  ChannelUpdate,
  ScreenTurnInfo,
} from '../types.js';
import { CopilotEvents, copilotHome, eventsPath, type Interaction } from './events.js';

/**
 * Longest a read waits for Copilot CLI to record the end of the turn the screen completed: it
 * writes it before it draws its input box again; only a screen that completed a turn early
 * waits, for what Copilot writes next.
 */
export const COPILOT_ANSWER_WAIT_MS = 5_000;
/** Its own commands (/model) and shell lines (!ls) never reach the model: no interaction. */
const NOT_FOR_THE_MODEL = /^\s*[/!]/u;

/**
 * Copilot CLI's channel (checked on 1.0.102) is its session's `events.jsonl`: clippy starts it
 * with `--session-id <UUID>`, so the file is known, and reads the interaction the screen
 * completed (its message, its last answer exactly, model and tokens). While the screen has a turn
 * open the file is followed, so that its recorded end shortens the screen's settle. No hook is
 * wired: the file says all, and a plugin directory would be one more thing to keep per session.
 */
export class CopilotChannel implements AgentChannel {
  readonly agent = 'copilot' as const;
  private events: CopilotEvents | null = null;
  private readonly home: string;

  constructor(
    ctx: ChannelContext,
    private readonly session: string | undefined = ctx.agentSession,
  ) {
    this.home = copilotHome(ctx.env);
  }

  get agentSession(): string | undefined {
    return this.session;
  }

  onEvent(event: string): Promise<ChannelUpdate> {
    return Promise.resolve({ kind: 'ignored', why: `Copilot CLI sends no ${event} to clippy` });
  }

  expectsReport(): boolean {
    return false;
  }

  recordPath(): string | undefined {
    return this.session ? eventsPath(this.home, this.session) : undefined;
  }

  async recorded(turn: ScreenTurnInfo): Promise<ChannelTurn | null> {
    const t = await this.file()?.latest();
    if (!t || !this.ofTurn(t, turn) || !t.ended || t.aborted) return null;
    return this.report(t);
  }

  async readTurn(turn: ScreenTurnInfo): Promise<ChannelTurn | null> {
    const events = this.file();
    if (!events) throw new Error('the Copilot CLI session ID is unknown');
    const forModel = turn.prompt.trim() !== '' && !NOT_FOR_THE_MODEL.test(turn.prompt);
    // Its end, or (a turn it did not record: not for the model) nothing to wait for.
    const t = await readUntil(
      events.path,
      () => events.latest(),
      (t) => (t !== undefined && this.ofTurn(t, turn) ? t.ended : !forModel),
      COPILOT_ANSWER_WAIT_MS,
    );
    if (!t || !this.ofTurn(t, turn) || !t.ended || t.aborted) return null;
    return this.report(t);
  }

  dispose(): void {
    this.events = null;
  }

  private file(): CopilotEvents | null {
    if (!this.events && this.session)
      this.events = new CopilotEvents(eventsPath(this.home, this.session));
    return this.events;
  }

  /** Whether the interaction is the screen's turn: recorded during it, for its message. */
  private ofTurn(t: Interaction, turn: ScreenTurnInfo): boolean {
    return (
      (t.promptAt ?? 0) >= turn.startedAt - PROMPT_SLACK_MS && samePrompt(t.prompt, turn.prompt)
    );
  }

  private report(t: Interaction): ChannelTurn {
    const id = t.answerId ?? t.interactionId;
    return {
      answer: t.answer,
      prompt: t.prompt,
      record: defined({
        agent: 'copilot',
        via: 'copilot-events',
        session_id: this.session,
        turn_id: id,
        model: t.model,
        input_tokens: t.inputTokens,
        output_tokens: t.outputTokens,
        completed_at: t.at,
      }) as AgentTurn,
    };
  }
}

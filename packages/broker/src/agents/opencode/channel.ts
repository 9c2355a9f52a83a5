import type { AgentTurn } from '@clippy/protocol';
import { defined, num, parsePayload, str } from '../records.js';
import type { AgentChannel, ChannelContext, ChannelUpdate, ScreenTurnInfo } from '../types.js';

/** Its own commands (`/models`, `/new`) and shell lines (`!ls`) end no turn it reports. */
const NOT_FOR_THE_MODEL = /^\s*[/!]/u;
/** Answers reported already, remembered this far back (a report is delivered once). */
const DELIVERED_KEPT = 64;

/**
 * OpenCode's channel (checked on 1.18.33): clippy's plugin, loaded into this session's OpenCode
 * only (./plugin.ts), reports through the hook entry `session` when OpenCode starts a
 * conversation and `turn` when one goes idle: the prompt, the last answer's Markdown as
 * OpenCode's session messages API stores it, its model, tokens and cost. A turn the user
 * interrupted (its answer aborted) is the screen's.
 */
export class OpenCodeChannel implements AgentChannel {
  readonly agent = 'opencode' as const;
  private session: string | undefined;
  private readonly delivered: string[] = [];

  constructor(ctx: ChannelContext) {
    this.session = ctx.agentSession;
  }

  get agentSession(): string | undefined {
    return this.session;
  }

  // async: a payload it cannot read rejects (the hook entry is told), it does not throw.
  async onEvent(event: string, payload: string): Promise<ChannelUpdate> {
    return this.update(event, payload);
  }

  expectsReport(turn: ScreenTurnInfo): boolean {
    return !turn.interrupted && turn.prompt.trim() !== '' && !NOT_FOR_THE_MODEL.test(turn.prompt);
  }

  dispose(): void {
    this.delivered.length = 0;
  }

  private update(event: string, payload: string): ChannelUpdate {
    if (event !== 'session' && event !== 'turn')
      return { kind: 'ignored', why: `OpenCode event ${event}` };
    const p = parsePayload('opencode', event, payload);
    const session = str(p.session_id);
    if (!session) throw new Error(`opencode ${event}: the payload has no session_id`);
    this.session = session;
    if (event === 'session') return { kind: 'started' };
    const id = str(p.message_id);
    if (p.aborted === true) return { kind: 'ignored', why: `turn ${id ?? '?'} was interrupted` };
    if (id !== undefined && this.delivered.includes(id))
      return { kind: 'ignored', why: `turn ${id} was reported already` };
    if (id !== undefined) {
      this.delivered.push(id);
      if (this.delivered.length > DELIVERED_KEPT) this.delivered.shift();
    }
    const cost = num(p.cost);
    const prompt = str(p.prompt);
    return {
      kind: 'turn',
      turn: {
        answer: str(p.answer) ?? null,
        ...(prompt !== undefined ? { prompt } : {}),
        record: defined({
          agent: 'opencode',
          via: 'opencode-plugin',
          session_id: session,
          turn_id: id,
          model: str(p.model),
          input_tokens: num(p.input_tokens),
          output_tokens: num(p.output_tokens),
          // OpenCode counts 0 for a model whose price it does not know: not a price.
          cost_usd: cost !== undefined && cost > 0 ? cost : undefined,
          completed_at: num(p.completed_at) ?? Date.now(),
        }) as AgentTurn,
      },
    };
  }
}

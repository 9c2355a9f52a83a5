import type { AgentTurn } from '@clippy/protocol';
import { defined, parsePayload, str, type Json } from '../records.js';
import type {
  AgentChannel,
  ChannelContext,
  ChannelTurn,
  ChannelUpdate,
  ScreenTurnInfo,
} from '../types.js';
import { readMessages, recordTurn, type OpenCodeRecordTurn } from './record.js';

/** Its own commands (`/models`, `/new`) and shell lines (`!ls`) end no turn it reports. */
const NOT_FOR_THE_MODEL = /^\s*[/!]/u;
/** Answers reported already, remembered this far back (a report is delivered once). */
const DELIVERED_KEPT = 64;

/**
 * OpenCode's channel (checked on 1.18.33): clippy's plugin, loaded into this session's OpenCode
 * only (./plugin.ts), reports through the hook entry `session` when OpenCode starts a
 * conversation and `turn` when one goes idle, naming the session, the turn's last message and
 * the server its OpenCode runs. The report only says which turn ended: its answer, model,
 * tokens and cost are read from OpenCode's own record (the session's messages, from its server:
 * ./record.ts); the plugin's copy is the cross-check, never the turn's text. A turn the user
 * interrupted (its answer aborted) is the screen's.
 */
export class OpenCodeChannel implements AgentChannel {
  readonly agent = 'opencode' as const;
  private session: string | undefined;
  /** The server the session's OpenCode runs, as its plugin named it. */
  private server: string | undefined;
  private readonly delivered: string[] = [];
  private readonly env: Record<string, string>;

  constructor(ctx: ChannelContext) {
    this.session = ctx.agentSession;
    this.env = ctx.env;
  }

  get agentSession(): string | undefined {
    return this.session;
  }

  async onEvent(event: string, payload: string): Promise<ChannelUpdate> {
    if (event !== 'session' && event !== 'turn')
      return { kind: 'ignored', why: `OpenCode event ${event}` };
    const p = parsePayload('opencode', event, payload);
    const session = str(p.session_id);
    if (!session) throw new Error(`opencode ${event}: the payload has no session_id`);
    this.session = session;
    this.server = str(p.server_url) ?? this.server;
    if (event === 'session') return { kind: 'started' };
    const id = str(p.message_id);
    if (!id) throw new Error('opencode turn: the payload has no message_id');
    if (p.aborted === true) return { kind: 'ignored', why: `turn ${id} was interrupted` };
    if (this.delivered.includes(id))
      return { kind: 'ignored', why: `turn ${id} was reported already` };
    this.delivered.push(id);
    if (this.delivered.length > DELIVERED_KEPT) this.delivered.shift();
    return { kind: 'turn', turn: await this.fromRecord(session, id, p) };
  }

  expectsReport(turn: ScreenTurnInfo): boolean {
    return !turn.interrupted && turn.prompt.trim() !== '' && !NOT_FOR_THE_MODEL.test(turn.prompt);
  }

  dispose(): void {
    this.delivered.length = 0;
  }

  /** The reported turn as OpenCode's record holds it; no answer (the screen's) when unread. */
  private async fromRecord(session: string, id: string, report: Json): Promise<ChannelTurn> {
    const said = str(report.answer) ?? null;
    const base = {
      agent: 'opencode' as const,
      via: 'opencode-messages',
      session_id: session,
      turn_id: id,
    };
    let t: OpenCodeRecordTurn | null = null;
    let why: string;
    if (!this.server) why = 'its plugin named no server';
    else
      try {
        t = recordTurn(await readMessages(this.server, session, this.env), id);
        why = `it holds no message ${id}`;
      } catch (err) {
        why = (err as Error).message;
      }
    if (!t)
      return {
        answer: null,
        record: defined({ ...base, completed_at: Date.now() }) as AgentTurn,
        note: `OpenCode's record of its turn ${id} could not be read (${why}): the plugin's copy is not used, the text is the screen's`,
      };
    return {
      answer: t.answer,
      prompt: t.prompt,
      record: defined({
        ...base,
        model: t.model,
        input_tokens: t.inputTokens,
        output_tokens: t.outputTokens,
        // OpenCode counts 0 for a model whose price it does not know: not a price.
        cost_usd: t.cost !== undefined && t.cost > 0 ? t.cost : undefined,
        completed_at: t.completedAt ?? Date.now(),
      }) as AgentTurn,
      ...(said !== t.answer
        ? {
            note: `the plugin's report of OpenCode's turn ${id} gave another answer than its record: the record's is kept`,
          }
        : {}),
    };
  }
}

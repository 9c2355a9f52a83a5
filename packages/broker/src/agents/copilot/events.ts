import { join } from 'node:path';
import { JsonlFollower } from '../jsonl-follower.js';
import { num, obj, str, time, type Json } from '../records.js';

/** Copilot CLI's home: `$COPILOT_HOME`, else `~/.copilot`. */
export function copilotHome(env: Record<string, string | undefined>): string {
  return env.COPILOT_HOME || join(env.HOME ?? '', '.copilot');
}

/** The events file of a Copilot CLI session: `<home>/session-state/<id>/events.jsonl`. */
export function eventsPath(home: string, session: string): string {
  return join(home, 'session-state', session, 'events.jsonl');
}

/** One interaction of a Copilot CLI session: a user's message and what answered it. */
export interface Interaction {
  prompt: string;
  /** When Copilot recorded the message (epoch ms). */
  promptAt?: number;
  interactionId?: string;
  /** Its last assistant message with text: the answer, exact (null: none yet). */
  answer: string | null;
  answerId?: string;
  model?: string;
  inputTokens?: number;
  outputTokens?: number;
  /** When it ended (epoch ms). */
  at?: number;
  /** Copilot wrote its end: a model turn that asked for no tool, or an abort. */
  ended: boolean;
  /** The user stopped it (Esc, Ctrl-C): its answer, if any, is cut. */
  aborted: boolean;
}

/**
 * A Copilot CLI session's `events.jsonl` (checked on 1.0.102), read as it grows: `user.message`
 * (`content` exact, `interactionId`) opens an interaction; each model call is an
 * `assistant.turn_start` … `assistant.turn_end` with its `assistant.message` (`content` exact,
 * `model`, `toolRequests`) and a `session.usage_record` (tokens); the interaction ends at the
 * `turn_end` of a call that asked for no tool, or at an `abort`.
 */
export class CopilotEvents {
  private readonly file: JsonlFollower;
  private current: Interaction | undefined;
  /** The model call in progress asked for tools: its turn_end does not end the interaction. */
  private tools = false;

  constructor(readonly path: string) {
    this.file = new JsonlFollower(path);
  }

  /** The latest interaction as recorded so far (undefined: no message yet). */
  async latest(): Promise<Interaction | undefined> {
    for (const r of await this.file.readNew()) this.take(obj(r));
    return this.current;
  }

  private take(line: Json | undefined): void {
    const data = obj(line?.data);
    if (!line || !data) return;
    const t = this.current;
    switch (line.type) {
      case 'user.message':
        this.current = {
          prompt: str(data.content) ?? '',
          promptAt: time(line.timestamp),
          interactionId: str(data.interactionId),
          answer: null,
          ended: false,
          aborted: false,
        };
        this.tools = false;
        return;
      case 'assistant.message': {
        if (!t) return;
        const content = str(data.content);
        if (content) {
          t.answer = content;
          t.answerId = str(data.messageId);
        }
        t.model = str(data.model) ?? t.model;
        this.tools = Array.isArray(data.toolRequests) && data.toolRequests.length > 0;
        return;
      }
      case 'session.usage_record': {
        const u = obj(data.usage);
        if (!t || !u) return;
        const i = num(u.inputTokens);
        const o = num(u.outputTokens);
        if (i !== undefined) t.inputTokens = (t.inputTokens ?? 0) + i;
        if (o !== undefined) t.outputTokens = (t.outputTokens ?? 0) + o;
        return;
      }
      case 'assistant.turn_end':
        if (!t || this.tools) return;
        t.ended = true;
        t.at = time(line.timestamp);
        return;
      case 'abort':
        if (!t) return;
        t.ended = true;
        t.aborted = true;
        t.at = time(line.timestamp);
        return;
    }
  }
}

import { JsonlFollower } from '../jsonl-follower.js';
import { num, obj, str, time, type Json } from '../records.js';

/** What the transcript says about its latest turn. */
export interface QwenTranscriptTurn {
  /** The user's message that opened it, as Qwen Code kept it. */
  prompt: string;
  /** When Qwen Code recorded the prompt (epoch ms). */
  promptAt?: number;
  /** The last model message with text: the turn's answer (null: none yet). */
  answer: string | null;
  model?: string;
  /** Every model call of the turn: its prompt tokens, and its answer and thinking tokens. */
  inputTokens?: number;
  outputTokens?: number;
  /** When the answer was recorded (epoch ms). */
  at?: number;
}

/**
 * Qwen Code's session transcript (`~/.qwen/projects/<cwd slug>/chats/<session>.jsonl`, as its
 * hooks name it: `transcript_path`), read line by line as it grows. Checked on 0.24.4: a
 * `type:"user"` record (`message.parts[].text`) opens a turn; each model response is a
 * `type:"assistant"` record with its parts (text, `thought` text, `functionCall`), `model` and
 * `usageMetadata` (`promptTokenCount`, `candidatesTokenCount`, `thoughtsTokenCount`); a tool's
 * result is a `type:"tool_result"` record, and the rest (`system`: snapshots, telemetry) says
 * nothing of the answer. The records carry no turn ID: the hooks' `prompt_id` is matched by the
 * prompt's text and the answer's.
 */
export class QwenTranscript {
  private readonly file: JsonlFollower;
  private turn: Turn | null = null;

  constructor(readonly path: string) {
    this.file = new JsonlFollower(path);
  }

  /** The latest turn as recorded so far (undefined: no prompt yet). */
  async latest(): Promise<QwenTranscriptTurn | undefined> {
    for (const r of await this.file.readNew()) this.take(obj(r));
    const t = this.turn;
    if (!t) return undefined;
    return {
      prompt: t.prompt,
      ...(t.promptAt !== undefined ? { promptAt: t.promptAt } : {}),
      answer: t.answer,
      ...(t.model !== undefined ? { model: t.model } : {}),
      ...(t.counted ? { inputTokens: t.input, outputTokens: t.output } : {}),
      ...(t.at !== undefined ? { at: t.at } : {}),
    };
  }

  private take(r: Json | undefined): void {
    if (!r) return;
    const message = obj(r.message);
    if (r.type === 'user') {
      const text = partsText(message?.parts);
      if (text === undefined) return;
      this.turn = {
        prompt: text,
        promptAt: time(r.timestamp),
        answer: null,
        counted: false,
        input: 0,
        output: 0,
      };
      return;
    }
    const t = this.turn;
    if (r.type !== 'assistant' || !t) return;
    const text = partsText(message?.parts);
    if (text !== undefined) {
      t.answer = text;
      const at = time(r.timestamp);
      if (at !== undefined) t.at = at;
    }
    const model = str(r.model);
    if (model) t.model = model;
    const usage = obj(r.usageMetadata);
    if (usage) {
      t.counted = true;
      t.input += num(usage.promptTokenCount) ?? 0;
      // Thinking is billed as output.
      t.output += (num(usage.candidatesTokenCount) ?? 0) + (num(usage.thoughtsTokenCount) ?? 0);
    }
  }
}

interface Turn {
  prompt: string;
  promptAt: number | undefined;
  answer: string | null;
  model?: string;
  counted: boolean;
  input: number;
  output: number;
  at?: number;
}

/** A message's text (its text parts but thoughts, joined); undefined when it has none. */
function partsText(parts: unknown): string | undefined {
  if (!Array.isArray(parts)) return undefined;
  const texts: string[] = [];
  for (const part of parts) {
    const p = obj(part);
    if (p && typeof p.text === 'string' && p.thought !== true) texts.push(p.text);
  }
  return texts.length > 0 ? texts.join('') : undefined;
}

import { JsonlFollower } from '../jsonl-follower.js';
import { num, obj, str, time, type Json } from '../records.js';

/** One assistant message of the open turn (Claude writes one line per content block). */
interface Message {
  texts: string[];
  model?: string;
  usage?: { input: number; output: number };
  at?: number;
}

/** What the transcript says about one prompt's turn. */
export interface TranscriptTurn {
  promptId: string;
  prompt: string;
  /** The last assistant message's text: the turn's answer. */
  answer: string | null;
  model?: string;
  inputTokens?: number;
  outputTokens?: number;
  /** When the answer was written (epoch ms). */
  at?: number;
  /** When the prompt was recorded (epoch ms). */
  promptAt?: number;
  /** Claude Code wrote the turn's end (its `system` `turn_duration` line). */
  ended: boolean;
}

/**
 * Claude Code's session transcript (`~/.claude/projects/<cwd slug>/<session>.jsonl`, as its
 * hooks name it), read line by line as it grows. A `type:"user"` line with a new `promptId`
 * opens a turn; the `type:"assistant"` lines after it are its messages (one line per content
 * block, the same `message.id`); side chains (subagents) are not the answer. Checked on Claude
 * Code 2.1.197.
 */
export class ClaudeTranscript {
  private readonly file: JsonlFollower;
  private promptId: string | undefined;
  private prompt = '';
  private promptAt: number | undefined;
  private ended = false;
  private messages = new Map<string, Message>();

  constructor(readonly path: string) {
    this.file = new JsonlFollower(path);
  }

  /** The turn of `promptId` as recorded so far (undefined when the transcript has not opened it). */
  async turn(promptId: string): Promise<TranscriptTurn | undefined> {
    const t = await this.latest();
    return t?.promptId === promptId ? t : undefined;
  }

  /**
   * Forgets what was read: the next read takes the whole file again. What was read from where
   * the last read stopped could have missed a line the agent's writes moved under it.
   */
  restart(): void {
    this.file.restart();
    this.promptId = undefined;
    this.prompt = '';
    this.promptAt = undefined;
    this.ended = false;
    this.messages = new Map();
  }

  /** The latest turn as recorded so far (undefined: no prompt yet). */
  async latest(): Promise<TranscriptTurn | undefined> {
    for (const r of await this.file.readNew()) this.take(obj(r));
    const promptId = this.promptId;
    if (promptId === undefined) return undefined;
    let last: Message | undefined;
    let input: number | undefined;
    let output: number | undefined;
    for (const m of this.messages.values()) {
      if (m.texts.length > 0) last = m;
      if (m.usage) {
        input = (input ?? 0) + m.usage.input;
        output = (output ?? 0) + m.usage.output;
      }
    }
    return {
      promptId,
      prompt: this.prompt,
      answer: last ? last.texts.join('') : null,
      ...(last?.model ? { model: last.model } : {}),
      ...(input !== undefined ? { inputTokens: input } : {}),
      ...(output !== undefined ? { outputTokens: output } : {}),
      ...(last?.at !== undefined ? { at: last.at } : {}),
      ...(this.promptAt !== undefined ? { promptAt: this.promptAt } : {}),
      ended: this.ended,
    };
  }

  private take(line: Json | undefined): void {
    if (!line || line.isSidechain === true) return;
    if (line.type === 'user') {
      const promptId = str(line.promptId);
      if (!promptId || promptId === this.promptId) return;
      const text = userText(obj(line.message)?.content);
      if (text === undefined) return; // a tool's result, not a prompt
      this.promptId = promptId;
      this.prompt = text;
      this.promptAt = time(line.timestamp);
      this.ended = false;
      this.messages = new Map();
      return;
    }
    // Written once the turn is over (after its Stop hooks started; checked on 2.1.197).
    if (line.type === 'system' && line.subtype === 'turn_duration') {
      if (this.promptId !== undefined) this.ended = true;
      return;
    }
    if (line.type !== 'assistant' || this.promptId === undefined) return;
    const message = obj(line.message);
    const id = str(message?.id) ?? str(line.uuid);
    if (!message || !id) return;
    let m = this.messages.get(id);
    if (!m) {
      m = { texts: [] };
      this.messages.set(id, m);
    }
    const content = Array.isArray(message.content) ? message.content : [];
    for (const block of content) {
      const b = obj(block);
      if (b?.type === 'text' && typeof b.text === 'string') m.texts.push(b.text);
    }
    const model = str(message.model);
    if (model) m.model = model;
    const usage = obj(message.usage);
    // Every input token the model read, cached ones included (Claude counts them apart); the
    // message's last line has its final count.
    if (usage)
      m.usage = {
        input:
          (num(usage.input_tokens) ?? 0) +
          (num(usage.cache_creation_input_tokens) ?? 0) +
          (num(usage.cache_read_input_tokens) ?? 0),
        output: num(usage.output_tokens) ?? 0,
      };
    const at = time(line.timestamp);
    if (at !== undefined) m.at = at;
  }
}

/** A prompt's text (a string, or its text blocks); undefined for a tool result. */
function userText(content: unknown): string | undefined {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return undefined;
  const texts: string[] = [];
  for (const block of content) {
    const b = obj(block);
    if (b?.type === 'tool_result') return undefined;
    if (b?.type === 'text' && typeof b.text === 'string') texts.push(b.text);
  }
  return texts.length > 0 ? texts.join('\n') : undefined;
}

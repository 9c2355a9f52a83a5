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

/** One prompt's turn as read so far (its lines may come in any order: see ClaudeTranscript). */
interface TurnState {
  prompt: string;
  promptAt?: number;
  /** Its prompt line was read (a turn known only from its answer's lines has not opened). */
  opened: boolean;
  ended: boolean;
  messages: Map<string, Message>;
}

/** Turns kept: the latest prompt's, and a few before it whose late lines may still come. */
const MAX_TURNS_KEPT = 8;
/** Lines whose turn is remembered (by uuid) for the lines that name them as parent. */
const MAX_LINES_KEPT = 50_000;
/** Lines kept while their parent has not been read yet (written out of order). */
const MAX_WAITING_LINES = 2_000;

/**
 * Claude Code's session transcript (`~/.claude/projects/<cwd slug>/<session>.jsonl`, as its
 * hooks name it), read line by line as it grows. A `type:"user"` line with a new `promptId`
 * opens a turn; the `type:"assistant"` lines of the turn are its messages (one line per content
 * block, the same `message.id`); side chains (subagents) are not the answer. Checked on Claude
 * Code 2.1.197.
 *
 * A line belongs to the turn of the line it names as `parentUuid`, not to the turn open where it
 * sits in the file: Claude Code writes a turn's lines from concurrent writers, and on a loaded
 * machine a session's first answer was seen written before its prompt (the prompt's write waits
 * for the file to be made). A line whose parent has not been read yet waits for it; a line
 * without a parent (or without a uuid chain at all) belongs to the turn open where it sits.
 */
export class ClaudeTranscript {
  private readonly file: JsonlFollower;
  private readonly turns = new Map<string, TurnState>();
  /** The latest prompt read (its turn is the transcript's latest). */
  private promptId: string | undefined;
  /** Each line's turn, by its uuid. */
  private readonly turnOf = new Map<string, string>();
  /** Lines waiting for their parent, by the parent's uuid. */
  private readonly waiting = new Map<string, Json[]>();
  private waitingCount = 0;

  constructor(readonly path: string) {
    this.file = new JsonlFollower(path);
  }

  /** The turn of `promptId` as recorded so far (undefined when the transcript has not opened it). */
  async turn(promptId: string): Promise<TranscriptTurn | undefined> {
    await this.readNew();
    return this.view(promptId);
  }

  /** The latest turn as recorded so far (undefined: no prompt yet). */
  async latest(): Promise<TranscriptTurn | undefined> {
    await this.readNew();
    return this.promptId === undefined ? undefined : this.view(this.promptId);
  }

  private async readNew(): Promise<void> {
    for (const r of await this.file.readNew()) {
      const line = obj(r);
      if (line && line.isSidechain !== true) this.take(line);
    }
  }

  private view(promptId: string): TranscriptTurn | undefined {
    const t = this.turns.get(promptId);
    if (!t?.opened) return undefined;
    let last: Message | undefined;
    let input: number | undefined;
    let output: number | undefined;
    for (const m of t.messages.values()) {
      if (m.texts.length > 0) last = m;
      if (m.usage) {
        input = (input ?? 0) + m.usage.input;
        output = (output ?? 0) + m.usage.output;
      }
    }
    return {
      promptId,
      prompt: t.prompt,
      answer: last ? last.texts.join('') : null,
      ...(last?.model ? { model: last.model } : {}),
      ...(input !== undefined ? { inputTokens: input } : {}),
      ...(output !== undefined ? { outputTokens: output } : {}),
      ...(last?.at !== undefined ? { at: last.at } : {}),
      ...(t.promptAt !== undefined ? { promptAt: t.promptAt } : {}),
      ended: t.ended,
    };
  }

  /** A line read: its turn found (its own prompt id, its parent's, or where it sits), or waited for. */
  private take(line: Json): void {
    const promptId = line.type === 'user' ? str(line.promptId) : undefined;
    if (promptId !== undefined) {
      const text = userText(obj(line.message)?.content);
      // A tool's result carries its turn's prompt id; text under a new one is a prompt.
      if (text !== undefined && !this.turns.get(promptId)?.opened) this.open(promptId, line, text);
      this.place(line, promptId);
      return;
    }
    const parent = str(line.parentUuid);
    if (parent === undefined) {
      if (this.promptId !== undefined) this.place(line, this.promptId);
      return;
    }
    const turn = this.turnOf.get(parent);
    if (turn !== undefined) {
      this.place(line, turn);
      return;
    }
    const siblings = this.waiting.get(parent);
    if (siblings) siblings.push(line);
    else this.waiting.set(parent, [line]);
    if (++this.waitingCount > MAX_WAITING_LINES) this.dropOldestWaiting();
  }

  private open(promptId: string, line: Json, text: string): void {
    const t = this.state(promptId);
    t.opened = true;
    t.prompt = text;
    const at = time(line.timestamp);
    if (at !== undefined) t.promptAt = at;
    this.promptId = promptId;
    // Re-inserted last: the oldest turns are the first in the map's order.
    this.turns.delete(promptId);
    this.turns.set(promptId, t);
    while (this.turns.size > MAX_TURNS_KEPT) this.turns.delete(this.turns.keys().next().value!);
  }

  private state(promptId: string): TurnState {
    let t = this.turns.get(promptId);
    if (!t) {
      t = { prompt: '', opened: false, ended: false, messages: new Map() };
      this.turns.set(promptId, t);
    }
    return t;
  }

  /**
   * The line belongs to `promptId`'s turn: counted there, and so are the lines waiting on it, in
   * the order they were read (a message's text blocks are counted in order).
   */
  private place(line: Json, promptId: string): void {
    const lines: [Json, string][] = [[line, promptId]];
    for (let i = 0; i < lines.length; i++) {
      const [l, turn] = lines[i]!;
      this.count(l, turn);
      const uuid = str(l.uuid);
      if (uuid === undefined) continue;
      this.turnOf.set(uuid, turn);
      if (this.turnOf.size > MAX_LINES_KEPT) this.turnOf.delete(this.turnOf.keys().next().value!);
      const children = this.waiting.get(uuid);
      if (!children) continue;
      this.waiting.delete(uuid);
      this.waitingCount -= children.length;
      for (const child of children) {
        const own = child.type === 'user' ? str(child.promptId) : undefined;
        lines.push([child, own ?? turn]);
      }
    }
  }

  private dropOldestWaiting(): void {
    const [parent, lines] = this.waiting.entries().next().value!;
    this.waiting.delete(parent);
    this.waitingCount -= lines.length;
  }

  /** What the line says about its turn: its end, or one of its assistant messages. */
  private count(line: Json, promptId: string): void {
    // Written once the turn is over (after its Stop hooks started; checked on 2.1.197).
    if (line.type === 'system' && line.subtype === 'turn_duration') {
      this.state(promptId).ended = true;
      return;
    }
    if (line.type !== 'assistant') return;
    const message = obj(line.message);
    const id = str(message?.id) ?? str(line.uuid);
    if (!message || !id) return;
    const t = this.state(promptId);
    let m = t.messages.get(id);
    if (!m) {
      m = { texts: [] };
      t.messages.set(id, m);
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

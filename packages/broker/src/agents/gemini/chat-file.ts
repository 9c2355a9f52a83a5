import { readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { JsonlFollower } from '../jsonl-follower.js';
import { num, obj, str, time, type Json } from '../records.js';

/** The answer and numbers of the open turn of a Gemini chat. */
export interface ChatTurn {
  prompt: string;
  /** When Gemini recorded the prompt (epoch ms). */
  promptAt?: number;
  answer: string | null;
  messageId?: string;
  model?: string;
  inputTokens?: number;
  outputTokens?: number;
  at?: number;
}

/** The end of the name of every chat file of a session: `-<first 8 of its ID>.jsonl`. */
export function chatFileSuffix(session: string): string {
  return `-${session.slice(0, 8)}.jsonl`;
}

/**
 * The chat files of a Gemini CLI session: `<home>/.gemini/tmp/<project>/chats/
 * session-<time>-<first 8 of the ID>.jsonl` whose first record names the session (oldest
 * first); `known` maps the files already looked at to whether they are the session's (each is
 * read once). A resumed session has more than one: `gemini --resume` (0.61.0) writes a new file
 * holding only its context while the conversation goes on in the file it resumed, so which one
 * holds a turn is read, never guessed from the names.
 */
export async function findChatFiles(
  home: string,
  session: string,
  known: Map<string, boolean> = new Map(),
): Promise<string[]> {
  const tmp = join(home, '.gemini', 'tmp');
  let projects: string[];
  try {
    projects = await readdir(tmp);
  } catch {
    return [];
  }
  const suffix = chatFileSuffix(session);
  const found: string[] = [];
  for (const p of projects) {
    let files: string[];
    try {
      files = await readdir(join(tmp, p, 'chats'));
    } catch {
      continue;
    }
    for (const f of files.filter((x) => x.endsWith(suffix)).sort()) {
      const path = join(tmp, p, 'chats', f);
      let ours = known.get(path);
      if (ours === undefined) {
        const first = (await new JsonlFollower(path).readNew())[0];
        // A file not written yet says nothing: looked at again next time.
        if (first === undefined) continue;
        ours = str(obj(first)?.sessionId) === session;
        known.set(path, ours);
      }
      if (ours) found.push(path);
    }
  }
  return found;
}

interface Message {
  id: string;
  type: string;
  content: string;
  model?: string;
  tokens?: { input: number; output: number };
  at?: number;
}

/**
 * A Gemini CLI chat file (checked on 0.61.0), read as it grows: one JSON record per line — a
 * message (`id`, `type` `user`/`gemini`, `content` exact with `tokens` and `model` on answers;
 * a later line with the same `id` replaces it), `$set` metadata, `$rewindTo` (messages from
 * that ID on are gone). A user message with text opens a turn; its last answer with text is
 * the turn's answer (the content Gemini CLI keeps has no trailing newline).
 */
export class GeminiChat {
  private readonly file: JsonlFollower;
  private messages: Message[] = [];

  constructor(readonly path: string) {
    this.file = new JsonlFollower(path);
  }

  /** The latest turn as recorded so far (undefined: no prompt recorded yet). */
  async latest(): Promise<ChatTurn | undefined> {
    for (const r of await this.file.readNew()) this.take(obj(r));
    const start = this.messages.findLastIndex((m) => m.type === 'user');
    if (start < 0) return undefined;
    const answers = this.messages.slice(start + 1).filter((m) => m.type === 'gemini');
    const last = answers.findLast((m) => m.content !== '');
    let input: number | undefined;
    let output: number | undefined;
    for (const m of answers)
      if (m.tokens) {
        input = (input ?? 0) + m.tokens.input;
        output = (output ?? 0) + m.tokens.output;
      }
    // Messages before the open turn are not needed again.
    this.messages = this.messages.slice(start);
    const user = this.messages[0]!;
    return {
      prompt: user.content,
      ...(user.at !== undefined ? { promptAt: user.at } : {}),
      answer: last ? last.content : null,
      ...(last ? { messageId: last.id } : {}),
      ...(last?.model ? { model: last.model } : {}),
      ...(input !== undefined ? { inputTokens: input } : {}),
      ...(output !== undefined ? { outputTokens: output } : {}),
      ...(last?.at !== undefined ? { at: last.at } : {}),
    };
  }

  private take(r: Json | undefined): void {
    if (!r) return;
    const rewind = str(r.$rewindTo);
    if (rewind !== undefined) {
      const at = this.messages.findIndex((m) => m.id === rewind);
      this.messages = at < 0 ? [] : this.messages.slice(0, at);
      return;
    }
    const id = str(r.id);
    const type = str(r.type);
    if (!id || !type) return;
    const content = contentText(r.content);
    // Gemini CLI's own context (session_context) is not a prompt.
    if (type === 'user' && (content === '' || content.startsWith('<session_context>'))) return;
    const tokens = obj(r.tokens);
    const m: Message = {
      id,
      type,
      content,
      ...(str(r.model) ? { model: str(r.model)! } : {}),
      ...(tokens
        ? { tokens: { input: num(tokens.input) ?? 0, output: num(tokens.output) ?? 0 } }
        : {}),
      ...(time(r.timestamp) !== undefined ? { at: time(r.timestamp)! } : {}),
    };
    const i = this.messages.findIndex((x) => x.id === id);
    if (i >= 0) this.messages[i] = m;
    else this.messages.push(m);
  }
}

/** A message's text: a string, or the text of its parts. */
function contentText(content: unknown): string {
  if (typeof content === 'string') return content;
  if (!Array.isArray(content)) return '';
  return content.map((p) => str(obj(p)?.text) ?? '').join('');
}

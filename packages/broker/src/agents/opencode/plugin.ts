/**
 * clippy's plugin for OpenCode (checked on 1.18.33). clippy's wiring loads it into one session's
 * OpenCode only (OPENCODE_CONFIG_CONTENT's `plugin` list, see ./index.ts); it runs inside
 * OpenCode's own process (Bun), so it imports node's built-ins alone, and exports nothing but the
 * plugin (OpenCode calls every export of a plugin module as a plugin).
 *
 * It hands OpenCode's own record of the session to the daemon through clippy's hook entry, one
 * JSON object on the entry's stdin (never on a command line): `session` when OpenCode starts a
 * conversation, `turn` when one goes idle after a prompt typed in this process — the prompt, the
 * last answer's Markdown exactly as the session messages API stores it, its model and tokens.
 * It never changes what OpenCode does: every failure is swallowed.
 */
import { spawn } from 'node:child_process';

/** Where clippy's wiring puts the hook entry's command lines, by event (see ./index.ts). */
const HOOKS_VAR = 'CLIPPY_OPENCODE_HOOKS';
/** The hook commands, kept once read: the variable is taken out of OpenCode's environment. */
const KEPT = Symbol.for('clippy.opencode.hooks');
/** Longest a hook process may run before it is stopped (the entry gives up after 10 s itself). */
const HOOK_KILL_MS = 15_000;
/** Answers already reported, remembered this far back (OpenCode may go idle twice on one). */
const REPORTED_KEPT = 64;

type Json = Record<string, unknown>;
interface Message {
  info: Json;
  parts: Json[];
}
/** The hooks of an OpenCode plugin that it uses. */
interface Hooks {
  'chat.message'?: (input: Json, output: { message?: Json }) => Promise<void>;
  event?: (input: { event: { type: string; properties?: Json } }) => Promise<void>;
}
interface PluginInput {
  client: {
    session: {
      messages(o: { path: { id: string } }): Promise<{ data?: unknown }>;
    };
  };
}

const obj = (v: unknown): Json | undefined =>
  v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Json) : undefined;
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const num = (v: unknown): number | undefined =>
  typeof v === 'number' && Number.isFinite(v) ? v : undefined;

/** The text a message shows: its text parts, without the ones OpenCode adds itself. */
function textOf(m: Message): string {
  return m.parts
    .filter((p) => p.type === 'text' && p.synthetic !== true && p.ignored !== true)
    .map((p) => str(p.text) ?? '')
    .join('\n\n');
}

/** Runs one hook command with the event on its stdin, and resolves once it exited. */
function run(argv: string[], input: string): Promise<void> {
  return new Promise((resolve) => {
    let child;
    try {
      child = spawn(argv[0]!, argv.slice(1), { stdio: ['pipe', 'ignore', 'ignore'] });
    } catch {
      resolve();
      return;
    }
    const timer = setTimeout(() => child.kill('SIGKILL'), HOOK_KILL_MS);
    const done = () => {
      clearTimeout(timer);
      resolve();
    };
    child.once('error', done);
    child.once('close', done);
    child.stdin?.once('error', () => {});
    child.stdin?.end(input);
  });
}

/**
 * The latest turn of a session: its last user message (when it was prompted in this process)
 * and the answers to it.
 */
function lastTurn(messages: Message[], prompted: ReadonlySet<string>): Json | null {
  const u = messages.findLastIndex((m) => m.info.role === 'user');
  const user = messages[u];
  const userId = str(user?.info.id);
  if (!user || !userId || !prompted.has(userId)) return null;
  const answers = messages
    .slice(u + 1)
    .filter((m) => m.info.role === 'assistant' && m.info.parentID === userId);
  const last = answers.at(-1);
  if (!last) return null;
  let input: number | undefined;
  let output: number | undefined;
  let cost: number | undefined;
  for (const a of answers) {
    const t = obj(a.info.tokens);
    const i = num(t?.input);
    const o = num(t?.output);
    const c = num(a.info.cost);
    if (i !== undefined) input = (input ?? 0) + i;
    if (o !== undefined) output = (output ?? 0) + o;
    if (c !== undefined) cost = (cost ?? 0) + c;
  }
  const withText = answers.findLast((a) => textOf(a) !== '');
  const error = obj(last.info.error);
  const provider = str(last.info.providerID);
  const model = str(last.info.modelID);
  return {
    session_id: str(last.info.sessionID),
    message_id: str(last.info.id),
    prompt_id: userId,
    prompt: textOf(user),
    answer: withText ? textOf(withText) : null,
    model: model && provider ? `${provider}/${model}` : model,
    input_tokens: input,
    output_tokens: output,
    cost,
    completed_at: num(obj(last.info.time)?.completed),
    aborted: error?.name === 'MessageAbortedError',
    error: error ? (str(obj(error.data)?.message) ?? str(error.name)) : undefined,
  };
}

export const ClippyChannel = async ({ client }: PluginInput): Promise<Hooks> => {
  const kept = globalThis as { [KEPT]?: string };
  const raw = process.env[HOOKS_VAR] ?? kept[KEPT];
  if (!raw) return {};
  // Kept here, and out of the environment of what OpenCode runs (a nested OpenCode loads this
  // plugin too, through the inherited OPENCODE_CONFIG_CONTENT: it must not report to this session).
  kept[KEPT] = raw;
  delete process.env[HOOKS_VAR];
  let hooks: Record<string, string[]>;
  try {
    hooks = JSON.parse(raw) as Record<string, string[]>;
  } catch {
    return {};
  }
  /** Sessions OpenCode started as subagents (the task tool): never the user's conversation. */
  const children = new Set<string>();
  /** User messages prompted in this process (a resumed session's older turns are not reported). */
  const prompted = new Set<string>();
  const reported: string[] = [];
  let chain = Promise.resolve();
  const send = (event: string, payload: Json) => {
    const argv = hooks[event];
    if (!Array.isArray(argv) || argv.length === 0) return;
    // One at a time, in order: a turn never overtakes its session's start.
    chain = chain.then(() => run(argv, JSON.stringify(payload)));
  };
  return {
    'chat.message': async (input: Json, output: { message?: Json }) => {
      const id = str(output.message?.id);
      if (id && !children.has(str(input.sessionID) ?? '')) prompted.add(id);
    },
    event: async ({ event }: { event: { type: string; properties?: Json } }) => {
      try {
        const props = event.properties ?? {};
        if (event.type === 'session.created') {
          const info = obj(props.info);
          const id = str(info?.id);
          if (!id) return;
          if (str(info?.parentID)) children.add(id);
          else send('session', { session_id: id });
          return;
        }
        if (event.type !== 'session.idle') return;
        const id = str(props.sessionID);
        if (!id || children.has(id)) return;
        const r = await client.session.messages({ path: { id } });
        const messages = (Array.isArray(r.data) ? r.data : [])
          .map((m) => obj(m))
          .filter((m): m is Json => !!m && !!obj(m.info) && Array.isArray(m.parts))
          .map((m) => ({
            info: m.info as Json,
            parts: (m.parts as unknown[]).map(obj).filter((p): p is Json => !!p),
          }));
        const turn = lastTurn(messages, prompted);
        const key = str(turn?.message_id);
        if (!turn || !key || reported.includes(key)) return;
        reported.push(key);
        if (reported.length > REPORTED_KEPT) reported.shift();
        send('turn', turn);
      } catch {
        // The daemon learns nothing of this turn: its screen stays the record.
      }
    },
  };
};

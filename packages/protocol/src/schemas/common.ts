import { z } from 'zod';
import { MAX_REQUEST_ID } from '../constants.js';
import { parseTurnId, parseTurnPosition } from '../turn-id.js';
import { TURN_PREVIEW_CHARS } from '../turn-preview.js';
import { WorktreeInfoSchema } from './worktrees.js';

/** Raw bytes on the wire (MessagePack bin). Decoded values may share memory with the frame. */
export const BytesSchema = z
  .custom<Uint8Array>((v) => v instanceof Uint8Array, { message: 'expected binary data' })
  .describe('bytes (MessagePack bin)');

/** Per-connection request id (u32); 0 is reserved for the handshake, pushes and notifications. */
export const IdSchema = z
  .number()
  .int()
  .min(0)
  .max(MAX_REQUEST_ID)
  .describe('u32 request id, echoed in the response');

/**
 * Whether a value is a request id (what IdSchema accepts), checked without zod: an answer to a
 * message that failed validation echoes its id only when it is one, else 0.
 */
export function isRequestId(value: unknown): value is number {
  return (
    typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= MAX_REQUEST_ID
  );
}

/** A session's ID or its name: every message that names a session accepts either. */
export const SessionRefSchema = z.string().min(1).describe('session ID or name');

/** A turn ID `<session>:<seq>` (the session part may also be the session name). */
export const TurnIdSchema = z
  .string()
  .refine((text) => parseTurnId(text) !== null, 'is not a turn ID <session>:<seq> (seq from 1)')
  .describe('turn ID `<session>:<seq>`');

/** A position in a session's turns: a turn ID, or `<session>:0` for before the first turn. */
export const TurnPositionSchema = z
  .string()
  .refine(
    (text) => parseTurnPosition(text) !== null,
    'is not a turn ID <session>:<seq> (or <session>:0)',
  )
  .describe('turn ID `<session>:<seq>`, or `<session>:0` for before the first turn');

export const SessionStateSchema = z
  .enum(['starting', 'idle', 'busy', 'blocked', 'exited'])
  .describe('what the session is doing, as the turn detector sees it');
export type SessionState = z.infer<typeof SessionStateSchema>;

export const MenuOptionSchema = z.object({
  label: z.string().describe('the choice as the screen shows it, without its number or cursor'),
  keys: z
    .array(z.string())
    .describe(
      'keys that pick it, pressed at once in this order (`send` with `keys`: names such as `Down`, `Enter`, or literal text such as `y`)',
    ),
  selected: z
    .boolean()
    .describe('the cursor is on it (typed letters: it is what Enter alone gives)'),
});
export type MenuOption = z.infer<typeof MenuOptionSchema>;

export const MenuSchema = z
  .object({
    question: z.string().describe('the question asked, or the line right above the choices'),
    detail: z
      .array(z.string())
      .describe("the dialog's other lines above the choices (the command, the file, the reason)"),
    options: z.array(MenuOptionSchema).min(1),
    style: z
      .enum(['numbered', 'radio', 'row', 'letters'])
      .describe(
        '`numbered`/`radio`: a cursor moves over the choices (Up/Down); `row`: over choices side by side (Left/Right); `letters`: a letter is typed',
      ),
    cancel: z
      .array(z.string())
      .nullable()
      .describe('keys that dismiss the question without a choice (Esc, where offered), or null'),
  })
  .describe('The question a blocked session asks and its choices, read from its screen.');
export type Menu = z.infer<typeof MenuSchema>;

export const SessionKindSchema = z
  .enum(['pty', 'wrapper', 'navigator'])
  .describe('`pty`: the broker owns the process; `wrapper`/`navigator`: a client registered it');
export type SessionKind = z.infer<typeof SessionKindSchema>;

/** What a notification setting turns on or off (config.json `notify`, `clippy notify`). */
export const NOTIFY_SETTING_DESCRIPTIONS = {
  turn: 'notify when a turn finishes',
  blocked: 'notify when a session waits for you (a question, a prompt for input)',
  desktop: 'a desktop notification (notify-send, osascript) when a desktop session is there',
  page: 'the web view’s notification (through its service worker), when a page is open',
  sound: 'the web view plays a short sound with its notification',
  bell: 'the bell (BEL) in the terminal of an attached `clippy attach`',
  editor: 'a notification in VS Code or Neovim, when one is connected',
} as const;
export type NotifyKey = keyof typeof NOTIFY_SETTING_DESCRIPTIONS;
/** Each setting's default: notified in every place that shows it, but no sound and no bell. */
export const NOTIFY_DEFAULTS: Readonly<Record<NotifyKey, boolean>> = {
  turn: true,
  blocked: true,
  desktop: true,
  page: true,
  sound: false,
  bell: false,
  editor: true,
};
export const NOTIFY_KEYS = Object.keys(NOTIFY_DEFAULTS) as NotifyKey[];

function notifyShape<T extends z.ZodType>(value: (key: NotifyKey) => T): Record<NotifyKey, T> {
  return Object.fromEntries(NOTIFY_KEYS.map((k) => [k, value(k)])) as Record<NotifyKey, T>;
}

/** How a webhook's POST is written (docs/notify.md, "Webhooks"). */
export const WEBHOOK_FORMATS = ['json', 'ntfy', 'slack'] as const;
export const WebhookFormatSchema = z
  .enum(WEBHOOK_FORMATS, { error: `must be one of ${WEBHOOK_FORMATS.join(', ')}` })
  .describe(
    '`json`: clippy’s own object; `ntfy`: the text as the body, with Title, Priority and Click headers; `slack`: {"text": …} (Slack, Discord and compatible incoming webhooks)',
  );
export type WebhookFormat = z.infer<typeof WebhookFormatSchema>;
/** The webhook's format when none is set. */
export const DEFAULT_WEBHOOK_FORMAT: WebhookFormat = 'json';

/** Whether a text is a URL a webhook can be POSTed to (http or https). */
export function isWebhookUrl(text: string): boolean {
  try {
    const u = new URL(text);
    return (u.protocol === 'http:' || u.protocol === 'https:') && u.hostname !== '';
  } catch {
    return false;
  }
}

/**
 * A webhook's URL as it may be shown or logged: its scheme and host only. The rest (path,
 * query, user) is where services put the secret that lets anyone post (a Slack or Discord
 * webhook's token, an ntfy topic).
 */
export function maskWebhookUrl(text: string): string {
  try {
    const u = new URL(text);
    const rest = `${u.pathname}${u.search}${u.hash}`.replace(/^\/$/u, '');
    return `${u.protocol}//${u.host}${rest || u.username ? '/…' : '/'}`;
  } catch {
    return '(not a URL)';
  }
}

/** A webhook: an http(s) URL, or false for none at this level (over one set below it). */
export const WebhookSchema = z
  .union([
    z
      .string()
      .refine(isWebhookUrl, { error: 'must be an http:// or https:// URL' })
      .describe('an http(s) URL'),
    z.literal(false),
  ])
  .describe(
    'POST each notified event to this URL (false: none here); it may hold a secret: never logged in full',
  );

/** The webhook settings of a level, each optional. */
const webhookPartial = {
  webhook: WebhookSchema.optional(),
  webhookFormat: WebhookFormatSchema.optional(),
};

/** A set of notification settings, each optional (absent: the level below decides). */
export const NotifyPartialSchema = z
  .object({
    ...notifyShape((k) =>
      z
        .boolean({ error: 'must be true or false' })
        .optional()
        .describe(NOTIFY_SETTING_DESCRIPTIONS[k]),
    ),
    ...webhookPartial,
  })
  .strict();
export type NotifyPartial = z.infer<typeof NotifyPartialSchema>;

/** A session's own settings as `notify_settings` sets them: null drops one. */
export const NotifyOverridesSchema = z
  .object({
    ...notifyShape(() => z.boolean().nullable().optional()),
    webhook: WebhookSchema.nullable().optional(),
    webhookFormat: WebhookFormatSchema.nullable().optional(),
  })
  .strict();
export type NotifyOverrides = z.infer<typeof NotifyOverridesSchema>;

/** Every setting with its value: what is in force for a session, or globally. */
export const NotifyEffectiveSchema = z.object({
  ...notifyShape(() => z.boolean()),
  webhook: z
    .string()
    .nullable()
    .describe(
      'the webhook in force, shown as its scheme and host (`https://ntfy.sh/…`: the rest may be a secret), or null',
    ),
  webhookFormat: WebhookFormatSchema,
});
export type NotifyEffective = z.infer<typeof NotifyEffectiveSchema>;

/**
 * The agents whose own record of a turn clippy can read (docs/turns.md, "Agent channels"): a
 * preset names one with its `agent` field.
 */
export const AgentNameSchema = z
  .enum(['claude', 'codex', 'gemini', 'qwen', 'opencode', 'copilot'])
  .describe('an agent whose own record of its turns clippy reads');
export type AgentName = z.infer<typeof AgentNameSchema>;

/** Tokens and cost as the agent reports them (each absent when it does not). */
const Usage = {
  input_tokens: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('input tokens, as the agent counts them'),
  output_tokens: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe('output tokens, as the agent counts them'),
  cost_usd: z
    .number()
    .min(0)
    .optional()
    .describe(
      "cost in US dollars: the agent's own figure, else its tokens at its model's price (clippy's pricing table, config.json `pricing`); for a session, the sum of its turns that have one",
    ),
  cost_unknown: z
    .string()
    .optional()
    .describe(
      'why the cost is not known (or, beside `cost_usd`, why part of it is not): the model that has no price in the pricing table, or that the agent named none',
    ),
};

/** A turn as the agent itself recorded it (its channel: hooks, notify, transcript, chat file). */
export const AgentTurnSchema = z
  .object({
    agent: AgentNameSchema,
    via: z
      .string()
      .describe(
        'where clippy read it: `claude-transcript`, `claude-stop-hook`, `codex-rollout`, `codex-notify`, `gemini-chat`, `qwen-transcript`, `qwen-stop-hook`, `opencode-plugin`, `copilot-events`',
      ),
    session_id: z.string().optional().describe('the agent’s own session (thread) ID'),
    turn_id: z
      .string()
      .optional()
      .describe('the agent’s own ID of the turn (prompt ID, turn ID or message ID)'),
    model: z.string().optional().describe('the model that answered, as the agent names it'),
    ...Usage,
    completed_at: z
      .number()
      .optional()
      .describe('epoch ms when the agent reported the turn complete'),
  })
  .describe('the agent’s own record of the turn');
export type AgentTurn = z.infer<typeof AgentTurnSchema>;

/** Which source a turn's `text` came from. */
export const TextSourceSchema = z
  .enum(['agent', 'screen'])
  .describe(
    '`agent`: the agent’s own Markdown answer (its channel delivered it); `screen`: read off the rendered screen, UI chrome removed',
  );
export type TextSource = z.infer<typeof TextSourceSchema>;

export const SessionInfoSchema = z.object({
  session: z.string().describe('opaque unique ID, never reused'),
  name: z.string().describe('unique among live sessions; usable wherever an ID is'),
  kind: SessionKindSchema,
  pid: z.number().int().describe('process ID of the child (or of the registering wrapper)'),
  has_turn: z.boolean().describe('whether at least one completed turn is stored'),
  turn_count: z.number().int().min(0).describe('completed turns seen since the session started'),
  state: SessionStateSchema,
  command: z.string().describe('program that was started'),
  args: z.array(z.string()),
  cwd: z.string(),
  preset: z.string().describe('preset name, or `custom` for a --pattern'),
  cols: z.number().int(),
  rows: z.number().int(),
  clients: z.number().int().min(0).describe('connections attached right now'),
  created_at: z.number().describe('epoch ms'),
  exited_at: z.number().nullable().optional().describe('epoch ms, once exited'),
  exit_code: z
    .number()
    .int()
    .nullable()
    .optional()
    .describe('exit status once exited (null when killed by a signal)'),
  exit_signal: z
    .string()
    .nullable()
    .optional()
    .describe('signal name when killed by one, e.g. SIGKILL'),
  detection_stopped: z
    .string()
    .nullable()
    .optional()
    .describe(
      'why turn detection stopped for this session (it runs on, without turns); absent while detection runs',
    ),
  persisted: z
    .boolean()
    .optional()
    .describe('its turns are kept in the on-disk history (`--persist`); absent when not'),
  restored: z
    .boolean()
    .optional()
    .describe(
      'read back from the history after a daemon restart: exited, its process is not re-attached',
    ),
  ended_with_daemon: z
    .boolean()
    .optional()
    .describe(
      'restored, and it was running when its daemon ended (killed, crashed): the daemon’s reaper ended it then, and no exit status was recorded; absent otherwise',
    ),
  menu: MenuSchema.optional().describe(
    'while `blocked`: the question and choices on its screen, as they are now (the cursor may have moved); absent otherwise, or when the screen shows no choices',
  ),
  worktree: WorktreeInfoSchema.optional().describe(
    'the git worktree it runs in (`clippy new --worktree`); absent when it has none',
  ),
  unread: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe(
      'completed turns nobody has looked at yet (0: none, or never asked); cleared when shown: attach, `get_turn` with `read`, a page or editor showing the session (docs/notify.md)',
    ),
  agent: AgentNameSchema.optional().describe(
    'the agent whose channel is wired for this session (its preset declares one), or could not be (`agent_channel: off`); absent when none is',
  ),
  agent_channel: z
    .enum(['waiting', 'live', 'silent', 'off'])
    .optional()
    .describe(
      'with `agent`: `waiting` until the channel first delivers, `live` once it has, `silent` when a turn completed on screen and the agent never reported it (its text is then the screen’s), `off` when it could not be wired (the command line is not the agent itself nor a wrapper clippy sees through: `channel_note` says why; turns come from the screen)',
    ),
  agent_session: z
    .string()
    .optional()
    .describe('the agent’s own session ID (what `clippy revive` resumes)'),
  model: z.string().optional().describe('the model of its latest turn, as the agent names it'),
  ...Usage,
  revivable: z
    .boolean()
    .optional()
    .describe(
      'exited, and its agent can resume its conversation: `clippy revive` starts it again (same name, folder and preset)',
    ),
  channel_note: z
    .string()
    .optional()
    .describe(
      'the latest disagreement between the agent’s channel and the screen about a turn’s boundaries (also in the log); with `agent_channel: off`, why the channel was not wired',
    ),
});
export type SessionInfo = z.infer<typeof SessionInfoSchema>;

export const TurnMetaSchema = z.object({
  turn_id: TurnIdSchema,
  session: z.string().describe('session ID'),
  seq: z.number().int().min(1).describe('1, 2, 3, ... per session; never reused'),
  timestamp: z.number().describe('epoch ms when the turn completed'),
  byte_length: z.number().int().min(0).describe('length of `content` in bytes'),
  interrupted: z.boolean().describe('Ctrl-C was sent during the turn'),
  truncated: z.boolean().describe('content passed the per-turn cap and was cut'),
  duration_ms: z.number().min(0).describe('from the submitted input to the prompt'),
  prompt: z.string().describe('the submitted input that produced this turn'),
  preview: z
    .string()
    .optional()
    .describe(
      `the start of \`text\`, trimmed (up to ${TURN_PREVIEW_CHARS} characters), for cards and lists; not in \`history_search\` results (they carry the matching lines) nor in snapshots (they carry the whole text)`,
    ),
  hops: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe(
      'automatic injections (routes, on any daemon) in the chain that set this turn off: 0 for a turn a person or script started. A route forwards the turn only while `hops` + 1 is within its hop limit, and a route on another daemon reads it from `turn_completed`, so a cycle across daemons ends at the limit. Sent in every `turn_completed` and with the turns a daemon holds; absent from daemons older than this field (a route counts such a turn as 0 and logs a warning) and from turns read back from the history',
    ),
  text_source: TextSourceSchema.optional().describe(
    'where `text` came from: `agent` (its own Markdown answer) or `screen`; absent means `screen`',
  ),
  agent: AgentTurnSchema.optional().describe(
    'the agent’s own record of the turn: IDs, model, tokens, cost, completion; absent when its channel delivered none',
  ),
  disagreement: z
    .string()
    .optional()
    .describe(
      'the agent’s channel and the screen disagreed about this turn’s boundaries: what differed (nothing was resolved silently; the log has it too)',
    ),
});
export type TurnMeta = z.infer<typeof TurnMetaSchema>;

export const TurnSchema = TurnMetaSchema.extend({
  content: BytesSchema.describe('raw bytes between the start of the answer and the prompt, exact'),
  text: z
    .string()
    .describe(
      'what a person reads: the agent’s own Markdown answer when `text_source` is `agent`, else the screen’s text (ANSI removed, redraws resolved, echo and chrome removed)',
    ),
  screen_text: z
    .string()
    .optional()
    .describe('with `text_source` `agent`: the text read off the screen, for comparison'),
});
export type Turn = z.infer<typeof TurnSchema>;

export const RoleSchema = z
  .enum(['client', 'wrapper'])
  .describe('`wrapper` may register sessions it runs itself');
export type Role = z.infer<typeof RoleSchema>;

export const SinkSchema = z.enum(['inject', 'file', 'clipboard']);
export type Sink = z.infer<typeof SinkSchema>;

export const EventNameSchema = z.enum([
  'session_created',
  'session_ready',
  'state_changed',
  'turn_completed',
  'session_exited',
  'session_removed',
  'route_fired',
  'route_event',
  'turn_progress',
  'session_resized',
  'unread_changed',
]);
export type EventName = z.infer<typeof EventNameSchema>;

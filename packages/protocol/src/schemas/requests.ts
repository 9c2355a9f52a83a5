import { z } from 'zod';
import { ACK_INTERVAL_BYTES } from '../constants.js';
import {
  AgentNameSchema,
  BytesSchema,
  EventNameSchema,
  IdSchema,
  NotifyOverridesSchema,
  RoleSchema,
  SessionRefSchema,
  SessionStateSchema,
  SinkSchema,
  TurnIdSchema,
  TurnPositionSchema,
} from './common.js';
import { MAX_ROUTE_HOP_LIMIT, RouteNameSchema } from './routes.js';
import { DiffDetailSchema, WorktreeNameSchema } from './worktrees.js';

/** Builds a client→broker message schema: `{ type, id, ...fields }`, unknown keys rejected. */
function message<T extends string, S extends z.ZodRawShape>(
  type: T,
  description: string,
  shape: S,
) {
  return z
    .object({ type: z.literal(type), id: IdSchema, ...shape })
    .strict()
    .describe(description);
}

const Size = {
  cols: z.number().int().min(1).max(1000).describe('terminal columns'),
  rows: z.number().int().min(1).max(1000).describe('terminal rows'),
};

// --- handshake ---
export const HelloSchema = message('hello', 'First message on every connection (id 0).', {
  version: z.number().int().describe('must equal PROTOCOL_VERSION'),
  role: RoleSchema,
});

// --- sessions (ours) ---
export const SpawnSchema = message(
  'spawn',
  'Start a command in a new PTY session owned by the broker.',
  {
    command: z.string().min(1).describe('program to run (looked up in PATH of `env`)'),
    args: z.array(z.string()).default([]),
    cwd: z.string().optional().describe('working directory (default: the broker’s)'),
    env: z
      .record(z.string(), z.string())
      .optional()
      .describe('full environment for the child (the caller’s, unchanged)'),
    name: z
      .string()
      .min(1)
      .max(64)
      .optional()
      .describe('unique name; default derived from the command'),
    cols: Size.cols.optional(),
    rows: Size.rows.optional(),
    preset: z.string().optional().describe('turn preset (default `generic`)'),
    pattern: z.string().optional().describe('custom prompt regex instead of a preset'),
    session_env: z
      .boolean()
      .optional()
      .describe(
        'set CLIPPY_SESSION_ID to the session’s ID in the child environment (default true); false leaves it out (and drops one the environment inherited)',
      ),
    persist: z
      .boolean()
      .optional()
      .describe(
        'keep this session’s turns in the on-disk history (default: config.json `persist`, else off); `true` is refused (`history_unavailable`) when the history could not be opened, the default then goes on unpersisted',
      ),
    worktree: z
      .object({
        name: WorktreeNameSchema.optional().describe(
          'default: the session’s name (a free one: `NAME-2`, … when its branch is taken)',
        ),
        base: z
          .string()
          .min(1)
          .max(256)
          .optional()
          .describe('commit, branch or tag the branch starts from (default: HEAD of `cwd`)'),
      })
      .strict()
      .optional()
      .describe(
        'run in a new git worktree of the repository holding `cwd`, on a new branch `clippy/NAME` (docs/worktrees.md); the command starts in the same folder of it as `cwd` is in the repository',
      ),
    agent_channel: z
      .boolean()
      .optional()
      .describe(
        'wire the agent channel of the preset’s agent for this session (default: config.json `agentChannels`, else on); false reads turns from the screen only',
      ),
  },
);
export const ReviveSchema = message(
  'revive',
  'Start an exited agent session again where it left off: its agent resumes its conversation, in the same folder, with the same name and preset; turn numbers go on.',
  {
    session: SessionRefSchema,
    env: z
      .record(z.string(), z.string())
      .optional()
      .describe('full environment for the child (the caller’s, unchanged)'),
    cols: Size.cols.optional(),
    rows: Size.rows.optional(),
  },
);
export const ListSessionsSchema = message(
  'list_sessions',
  'List every session, live and exited.',
  {},
);
export const ListPresetsSchema = message(
  'list_presets',
  'List the turn presets a `spawn` may name: the built-in ones and the user’s presets.json.',
  {},
);
export const KillSchema = message(
  'kill',
  'Signal a session’s process group (SIGHUP, then SIGKILL after a grace period).',
  {
    session: SessionRefSchema,
    signal: z.string().optional().describe('signal name, default SIGHUP'),
    remove: z.boolean().optional().describe('remove the session from the table once it has exited'),
  },
);
export const RemoveSchema = message(
  'remove',
  'Forget an exited session (its stored turns go with it). A session in a worktree: the worktree is removed too (its branch is kept), unless it holds uncommitted or unmerged work (`worktree_has_changes`).',
  {
    session: SessionRefSchema,
    force: z
      .boolean()
      .optional()
      .describe(
        'remove its worktree even with uncommitted or unmerged work; the result says what was lost',
      ),
  },
);
export const AttachSchema = message(
  'attach',
  'Attach this connection to a session: replay, then live output.',
  {
    session: SessionRefSchema,
    mode: z
      .enum(['interactive', 'observer'])
      .default('interactive')
      .describe(
        '`interactive`: ack-based backpressure; `observer`: bounded queue, dropped when too slow',
      ),
    cols: Size.cols.optional(),
    rows: Size.rows.optional(),
    ignore_size: z
      .boolean()
      .optional()
      .describe(
        'a viewer (tmux’s `ignore-size`): its size is recorded, never taken unless it asks (`resize` with `fit`); observers always are',
      ),
    pid: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(
        'the attaching process’s ID: lets resolvers (tmux, X11) find the session shown in a pane or window from its process tree',
      ),
    terminal: z
      .string()
      .min(1)
      .max(4096)
      .optional()
      .describe(
        'direct mode: the path of the attaching process’s terminal (its stdin and stdout, e.g. `/dev/pts/3`), in raw mode, which the daemon then reads and writes itself; needs `pid` (that process must have it as descriptor 0 or 1) and `detach_key`. The answer says whether the daemon took it',
      ),
    detach_key: z
      .array(BytesSchema)
      .min(1)
      .max(8)
      .optional()
      .describe(
        'with `terminal`: every byte string the terminal may send for the detach key (its control byte, its kitty and modifyOtherKeys forms)',
      ),
  },
);
export const DetachSchema = message(
  'detach',
  'Stop receiving a session’s output; the session keeps running.',
  {
    session: SessionRefSchema,
  },
);
export const InputSchema = message('input', 'Write bytes to a session’s PTY, unmodified.', {
  session: SessionRefSchema,
  data: BytesSchema,
});
export const ResizeSchema = message(
  'resize',
  'Tell this client’s size; the session takes it if the client drives its size (the latest active driving client wins), if `fit`, or if the client is not attached.',
  {
    session: SessionRefSchema,
    ...Size,
    fit: z
      .boolean()
      .optional()
      .describe(
        'fit the session to this client’s window now, even as an observer or viewer; the size returns to the other clients’ when this one detaches',
      ),
  },
);
export const AckSchema = message(
  'ack',
  `Notification (id 0): the client has consumed \`bytes\` more output bytes (send one about every ${ACK_INTERVAL_BYTES} bytes).`,
  {
    session: SessionRefSchema,
    bytes: z.number().int().min(0).describe('output bytes consumed since the previous ack'),
  },
);
/** Keys in one `send`: a menu walk or a word, not a document (text goes in `text`). */
const MAX_KEYS = 1_000;
/** Longest single key argument (a literal word typed as keys). */
const MAX_KEY_LENGTH = 4_096;
export const SendSchema = message(
  'send',
  'Type text into a session, optionally pressing Enter as a separate write; or press keys.',
  {
    session: SessionRefSchema,
    text: z
      .string()
      .optional()
      .describe(
        'text to type (multi-line text: one bracketed paste where the program enabled paste mode, else as its preset’s `multiline` says); exactly one of text, keys',
      ),
    keys: z
      .array(z.string().min(1).max(MAX_KEY_LENGTH))
      .min(1)
      .max(MAX_KEYS)
      .optional()
      .describe(
        'keys to press at once, by name (`Enter`, `Down`, `C-c`, `M-x`; see KEY_NAMES) or as literal text',
      ),
    enter: z.boolean().optional().describe('press Enter after the text'),
    force: z.boolean().optional().describe('do not wait for the session to be idle'),
    idle_wait_ms: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe(
        'wait at most this long for the session to be idle (the daemon waits 15 s at most): `clippy ask --timeout` passes what is left of its time; `target_busy` after it',
      ),
    complete: z
      .boolean()
      .optional()
      .describe(
        'with `enter` (`clippy ask`): when the program answers Enter with its continuation prompt (a REPL block left open), press Enter once more to close it; `needs_input` if it still wants more',
      ),
  },
);
export const InterruptSchema = message(
  'interrupt',
  'Interrupt what a session’s program is doing, as a person would: Esc for a full-screen agent (screen preset), Ctrl-C for a line program.',
  { session: SessionRefSchema },
);
export const SubscribeSchema = message('subscribe', 'Receive session events as pushes.', {
  events: z
    .array(EventNameSchema)
    .optional()
    .describe('default: all but `turn_progress`, which comes only when named'),
  sessions: z.array(SessionRefSchema).optional().describe('default: all sessions'),
});
export const UnsubscribeSchema = message('unsubscribe', 'Stop receiving session events.', {});
export const DaemonStatusSchema = message(
  'daemon_status',
  'Report the broker’s pid, uptime, sockets and load.',
  {},
);
export const ShutdownSchema = message(
  'shutdown',
  'Stop the broker: clients are told, sessions are ended.',
  {},
);

// --- wrappers (clippy's) ---
export const RegisterSchema = message(
  'register',
  'Register a session the client runs itself (role wrapper).',
  {
    session: z.string().min(1).max(64).describe('name for the session'),
    pid: z.number().int(),
    pattern: z.string().describe('prompt pattern or preset name (informational for wrappers)'),
    kind: z.enum(['wrapper', 'navigator']).optional(),
    command: z.string().optional(),
    cwd: z.string().optional(),
  },
);
export const DeregisterSchema = message(
  'deregister',
  'End a registered session (always ok). Its turns stay readable.',
  {
    session: SessionRefSchema,
  },
);
export const TurnCompletedSchema = message(
  'turn_completed',
  'A wrapper publishes a completed turn of its session.',
  {
    session: SessionRefSchema,
    content: BytesSchema,
    interrupted: z.boolean(),
    timestamp: z.number().describe('epoch ms'),
    text: z.string().optional().describe('readable text (default: content as UTF-8)'),
    prompt: z.string().optional(),
    duration_ms: z.number().min(0).optional(),
  },
);
/** Largest agent event: a Stop hook's input carries the whole last answer (a turn's cap and more). */
const MAX_AGENT_EVENT_CHARS = 14 * 1024 * 1024;
export const AgentEventSchema = message(
  'agent_event',
  'An agent’s own channel reports on its session (sent by the hook entry the agent runs, `clippy-hook`).',
  {
    session: SessionRefSchema.describe('the clippy session the channel was wired for'),
    agent: AgentNameSchema,
    event: z
      .string()
      .min(1)
      .max(64)
      .describe('the agent’s event: `SessionStart`, `UserPromptSubmit`, `Stop`, `notify`, …'),
    payload: z
      .string()
      .max(MAX_AGENT_EVENT_CHARS)
      .describe('what the agent gave the hook (its JSON, as text)'),
    secret: z
      .string()
      .max(256)
      .optional()
      .describe(
        'the secret the session’s agent was given in its environment (`CLIPPY_HOOK_SECRET`); a report without it is refused with `unauthorized`',
      ),
  },
);
export const SetStateSchema = message('set_state', 'A wrapper reports its session’s state.', {
  session: SessionRefSchema,
  state: SessionStateSchema,
});

// --- turns and relay (clippy's names, plus ours) ---
export const CaptureSchema = message(
  'capture',
  'Copy the session’s latest turn into the global relay buffer.',
  {
    session: SessionRefSchema,
  },
);
export const CaptureByIdSchema = message(
  'capture_by_id',
  'Copy a stored turn into the global relay buffer.',
  {
    turn_id: TurnIdSchema,
  },
);
export const PasteSchema = message('paste', 'Inject the relay buffer into a session’s input.', {
  session: SessionRefSchema,
  raw: z.boolean().optional().describe('send `content` byte-for-byte instead of `text`'),
  enter: z.boolean().optional().describe('submit after pasting (default true)'),
  force: z.boolean().optional().describe('do not wait for the target to be idle'),
});
export const DeliverSchema = message('deliver', 'Deliver the relay buffer to a sink.', {
  sink: z.string().describe('`inject`, `file` or `clipboard`'),
  session: SessionRefSchema.optional().describe('target of `inject`'),
  path: z.string().optional().describe('target of `file` (overwritten)'),
  raw: z.boolean().optional(),
  enter: z.boolean().optional(),
  force: z.boolean().optional(),
});
export const PutBufferSchema = message(
  'put_buffer',
  'Put text that is not a turn (e.g. an execution report) into the global relay buffer.',
  {
    text: z.string().describe('the text to hold'),
    content: BytesSchema.optional().describe('raw form (default: `text` as UTF-8)'),
    label: z
      .string()
      .min(1)
      .max(64)
      // It becomes a turn ID, printed and used as a key: no NUL, escapes or other controls.
      .refine((label) => !/\p{Cc}/u.test(label), 'may not contain NUL or control characters')
      .describe(
        'where it came from, e.g. `report`; becomes the buffer’s turn ID (no control characters)',
      ),
  },
);
export const GetTurnSchema = message('get_turn', 'Read one stored turn with its content.', {
  turn_id: TurnIdSchema.optional(),
  session: SessionRefSchema.optional().describe('instead of turn_id: the session’s latest turn'),
  read: z
    .boolean()
    .optional()
    .describe(
      'the turn is shown to a person (`clippy show`, an editor): it and the turns before it are no longer unread',
    ),
});
export const ListTurnsSchema = message(
  'list_turns',
  'List a session’s stored turns, newest first, without content.',
  {
    session: SessionRefSchema,
    limit: z.number().int().min(1).optional(),
  },
);
export const RelaySchema = message(
  'relay',
  'Capture a turn and inject it into another session in one step.',
  {
    from: z.string().min(1).describe('session (its latest turn) or turn ID'),
    to: SessionRefSchema,
    raw: z.boolean().optional(),
    enter: z.boolean().optional(),
    force: z.boolean().optional(),
  },
);
export const WaitTurnSchema = message(
  'wait_turn',
  'Block until the session completes its next turn.',
  {
    session: SessionRefSchema,
    timeout_ms: z
      .number()
      .int()
      .min(1)
      .optional()
      .describe('give up with `timeout` after this long'),
    after: TurnPositionSchema.optional().describe(
      "return the first turn newer than this one of the session's (may already exist; one past the latest is `turn_not_found`, another session's `invalid_argument`)",
    ),
  },
);

// --- focus (which session the user is looking at) ---
export const FocusSchema = message(
  'focus',
  'Notification (id 0) from an attach client: its terminal gained or lost focus (focus reports, CSI ? 1004 h).',
  {
    session: SessionRefSchema,
    focused: z.boolean().describe('true: focus in; false: focus out'),
  },
);
export const FocusedSchema = message(
  'focused',
  'The attached session whose terminal reported focus last (and has not lost it since).',
  {},
);
export const ListClientsSchema = message(
  'list_clients',
  'List the attached clients: their process IDs and the session each shows.',
  {},
);
export const NoticeSchema = message(
  'notice',
  'Show a one-line message in the terminals attached to a session (hotkey feedback).',
  {
    session: SessionRefSchema,
    text: z
      .string()
      .min(1)
      .max(512)
      .describe('one line; control characters are replaced before it is shown'),
  },
);

// --- worktrees (docs/worktrees.md) ---
/** Paths one `diff` may name: a file list a client picked, not a repository. */
const MAX_DIFF_PATHS = 1_000;
export const DiffSchema = message(
  'diff',
  'A session’s changes in its worktree against its base: commits on its branch, staged and unstaged changes, and new files git does not track yet.',
  {
    session: SessionRefSchema,
    detail: DiffDetailSchema.default('patch'),
    paths: z
      .array(z.string().min(1).max(4096))
      .min(1)
      .max(MAX_DIFF_PATHS)
      .optional()
      .describe('only these files (paths in the repository): a file’s hunks after the list'),
    context: z
      .number()
      .int()
      .min(0)
      .max(10_000)
      .optional()
      .describe('lines of context around each change (default 3, as git)'),
  },
);

export const GetWorktreeSchema = message(
  'get_worktree',
  'A session’s worktree: where it is and what its diff is taken against, without running git (a client on the same machine runs `git diff` there itself).',
  { session: SessionRefSchema },
);

// --- history (persisted turns) ---
export const HistorySearchSchema = message(
  'history_search',
  'Full-text search over persisted turns, newest first.',
  {
    query: z
      .string()
      .min(1)
      .max(1024)
      .describe('text to find (case-insensitive, from a word start)'),
    session: SessionRefSchema.optional().describe('only this session (ID or name)'),
    since: z.number().optional().describe('only turns completed at or after this epoch ms'),
    limit: z.number().int().min(1).max(1000).optional().describe('most results (default 20)'),
  },
);
export const SnapshotSchema = message(
  'snapshot',
  'A session’s screen, scrollback and turns (persisted ones included) in one document.',
  { session: SessionRefSchema },
);
export const ReplaySchema = message(
  'replay',
  'Inject the last N turns of a session, as one message, into another session.',
  {
    session: SessionRefSchema.describe('where the turns come from (may have exited)'),
    last: z.number().int().min(1).max(1000).describe('how many of its newest turns'),
    into: SessionRefSchema.describe('the live session that receives them'),
    template: z
      .string()
      .min(1)
      .max(128)
      .optional()
      .describe('a route template (docs/routes.md) instead of the plain briefing'),
    enter: z.boolean().optional(),
    force: z.boolean().optional(),
  },
);

export const SinkNameSchema = SinkSchema;

// --- routes (docs/routes.md) ---
const RouteOptions = {
  name: RouteNameSchema.optional().describe('default: r1, r2, …'),
  template: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .describe('built-in (plain, review, implement, synthesize) or a file in the templates dir'),
  wrap: z
    .string()
    .max(4096)
    .optional()
    .describe('a line put before the turn (instead of a template)'),
  when: z
    .string()
    .max(1024)
    .optional()
    .describe('forward only turns whose text matches (RE2 syntax)'),
  include_interrupted: z.boolean().optional().describe('forward interrupted turns too'),
  hop_limit: z
    .number()
    .int()
    .min(1)
    .max(MAX_ROUTE_HOP_LIMIT)
    .optional()
    .describe('longest chain of automatic injections one turn may set off (default 10)'),
};
export const AddRouteSchema = message(
  'add_route',
  'Inject every turn a session completes into another session (or, with several sources, one combined message once each has a new turn).',
  {
    from: z.array(SessionRefSchema).min(1).max(16).describe('source sessions (several: fan-in)'),
    to: SessionRefSchema,
    remote: z
      .object({
        socket: z
          .string()
          .min(1)
          .describe('a local Unix socket reaching the other daemon (an SSH forwarding)'),
        host: z
          .string()
          .min(1)
          .max(255)
          .describe('how that machine is named in logs and `route ls`'),
      })
      .optional()
      .describe(
        'the single source is a session of the daemon behind `socket` (`clippy route add HOST:S T`)',
      ),
    ...RouteOptions,
  },
);
export const AddLoopSchema = message(
  'add_loop',
  'A two-agent loop: A’s turns go to B, B’s answers back to A, until a turn matches `until` or `rounds` rounds ran.',
  {
    a: SessionRefSchema,
    b: SessionRefSchema,
    until: z.string().min(1).max(1024).describe('a turn matching this ends the loop (RE2 syntax)'),
    rounds: z.number().int().min(1).max(1000).optional().describe('default 5'),
    name: RouteNameSchema.optional().describe('default: loop1, loop2, …'),
    template_a: z.string().min(1).max(128).optional().describe('for A’s turns sent to B'),
    template_b: z.string().min(1).max(128).optional().describe('for B’s answers sent to A'),
    prompt: z
      .string()
      .max(1024 * 1024)
      .optional()
      .describe('sent to A first, to start the loop'),
    include_interrupted: z.boolean().optional(),
    hop_limit: RouteOptions.hop_limit,
  },
);
export const ListRoutesSchema = message(
  'list_routes',
  'List the routes (loops as their two legs).',
  {},
);
export const RemoveRouteSchema = message(
  'remove_route',
  'Remove a route, or both legs of a loop.',
  {
    route: RouteNameSchema,
  },
);
export const PauseRouteSchema = message(
  'pause_route',
  'Stop a route (or loop) from firing; turns meanwhile are logged as skipped.',
  { route: RouteNameSchema },
);
export const ResumeRouteSchema = message(
  'resume_route',
  'Let a paused route (or loop) fire again.',
  {
    route: RouteNameSchema,
  },
);
export const RouteLogSchema = message(
  'route_log',
  'What routes did and why not: the newest entries, oldest first.',
  {
    route: RouteNameSchema.optional().describe('one route or loop (default: all)'),
    limit: z.number().int().min(1).max(10_000).optional().describe('default 100'),
  },
);

// --- notifications and unread turns (docs/notify.md) ---
export const NotifyClientSchema = message(
  'notify_client',
  'This connection shows notifications (`notification` pushes) and says which session it shows. Sent again whenever that changes. Each notification goes to one connection of a kind (a visible or focused one first); a session shown to a visible page or a focused editor is not notified, and its turns are read.',
  {
    kind: z.enum(['page', 'editor']).describe('`page`: the web view; `editor`: VS Code, Neovim'),
    viewing: SessionRefSchema.nullable()
      .optional()
      .describe('the session it shows now (null or absent: none)'),
    visible: z
      .boolean()
      .describe('page: its tab is visible; editor: its window has focus (the user looks at it)'),
    can_notify: z
      .boolean()
      .optional()
      .describe(
        'page: it may show desktop notifications (the browser granted it); while one that may is there, the daemon does not run notify-send itself (default true)',
      ),
  },
);
export const NotifySettingsSchema = message(
  'notify_settings',
  'Read the notification settings in force (config.json `notify`, its presets, and sessions’ own), or set a session’s own for its life.',
  {
    session: SessionRefSchema.optional().describe('with `set`: the session whose settings change'),
    set: NotifyOverridesSchema.optional().describe(
      'settings for `session`; null for a key drops the session’s own value',
    ),
  },
);

export const NotifyTestSchema = message(
  'notify_test',
  'Send one test notification to every place that is on (desktop or page, editor, bell, webhook), whatever the quiet rules say; the webhook is tried once and its answer awaited.',
  {},
);

// --- web view (packages/web, served by an HTTP + WebSocket endpoint on 127.0.0.1) ---
export const WebStartSchema = message(
  'web_start',
  'Start the web view’s HTTP + WebSocket endpoint on 127.0.0.1 (or report the running one); its WebSockets need the returned token (or a tab session the page got for it).',
  {
    port: z
      .number()
      .int()
      .min(0)
      .max(65535)
      .optional()
      .describe(
        'TCP port on 127.0.0.1 (default: config.json’s `web.port`, else 0: any free port); a running endpoint on another port is restarted',
      ),
    rotate: z
      .boolean()
      .optional()
      .describe(
        'make a new token first (kept in the state directory): every open page and tab session is let go',
      ),
    code: z
      .boolean()
      .optional()
      .describe(
        'also make a one-time code (`code_url`): a browser opened on it gets a tab session, and no token enters its history (`clippy web --open`)',
      ),
  },
);
export const ListHostsSchema = message(
  'list_hosts',
  'The machines of config.json’s `hosts` other than this one: the web view shows their sessions beside these, through this daemon (`/ws?…&host=NAME`, docs/web.md).',
  {},
);
export const WebStopSchema = message(
  'web_stop',
  'Stop the web view’s endpoint; its pages are disconnected and its token is forgotten.',
  {},
);

import { z } from 'zod';
import { ErrorCodeSchema } from './error-code.js';
import { RouteInfoSchema, RouteLogEntrySchema, RouteNameSchema } from './routes.js';
import {
  BytesSchema,
  IdSchema,
  NotifyEffectiveSchema,
  NotifyPartialSchema,
  SessionInfoSchema,
  SessionStateSchema,
  TurnMetaSchema,
  TurnSchema,
} from './common.js';
import { DiffFileSchema, DiffTotalsSchema, WorktreeInfoSchema } from './worktrees.js';

/** The latest pause of persistence: turns completed during it were never written. */
export const StorePauseSchema = z.object({
  since: z.number().describe('epoch ms: the write that failed'),
  until: z.number().nullable().describe('epoch ms: writing was tried again (null: still paused)'),
  reason: z.string().describe('the write error (e.g. ENOSPC: no space left on device, write)'),
  turns_not_written: z.number().int().describe('turns completed meanwhile, kept in memory only'),
});

export type StorePause = z.infer<typeof StorePauseSchema>;

/** The turn history as `daemon_status` reports it. */
export const StoreStatusSchema = z.object({
  dir: z.string().describe('where it lives ($XDG_STATE_HOME/clippy/history)'),
  paused: z.boolean().describe('writes stopped (disk full, write error); sessions go on'),
  warning: z.string().nullable().describe('why it paused, or what was damaged at start'),
  sessions: z.number().int().describe('persisted sessions held'),
  turns: z.number().int().describe('persisted turns held'),
  bytes: z.number().int().describe('size on disk'),
  max_bytes: z.number().int().describe('retention: oldest segments go above this size'),
  max_age_ms: z.number().describe('retention: segments older than this go'),
  last_pause: StorePauseSchema.nullable().describe(
    'the latest pause since the daemon started, also once it ended (null: none)',
  ),
});

/** `clippy snapshot`'s document (format version 1; see docs/persistence.md). */
export const SnapshotDocSchema = z.object({
  format: z.literal('clippy-snapshot'),
  version: z.literal(1),
  taken_at: z.number().describe('epoch ms'),
  session: SessionInfoSchema,
  screen: z
    .object({
      cols: z.number().int(),
      rows: z.number().int(),
      ansi: z
        .string()
        .describe('scrollback then screen, as terminal bytes (write into a terminal of this size)'),
    })
    .nullable()
    .describe('null when unknown (a session restored after a daemon crash)'),
  turns: z
    .array(
      TurnMetaSchema.extend({
        content_base64: z.string().describe('the raw bytes, base64'),
        text: z.string(),
      }),
    )
    .describe('oldest first'),
  omitted_turns: z
    .number()
    .int()
    .describe('older turns left out so the document fits in one message (12 MiB of turns)'),
});
export type SnapshotDoc = z.infer<typeof SnapshotDocSchema>;

export const StatusSchema = z
  .enum(['ok', 'error'])
  .describe('`ok`, or `error` with `error` and `message` set');

/** Answer to `hello`. On error the broker closes the connection after sending it. */
export const HelloAckSchema = z
  .object({
    type: z.literal('hello_ack'),
    id: IdSchema,
    status: StatusSchema,
    error: ErrorCodeSchema.optional().describe('stable code when status is error'),
    message: z.string().optional().describe('human-readable detail when status is error'),
    version: z.number().int().optional().describe('the version the broker speaks'),
    broker_pid: z.number().int().optional().describe('process ID of the broker'),
    package_version: z
      .string()
      .optional()
      .describe(
        'the clippy release the broker runs (e.g. `0.1.0`): a client of another one can say an upgrade awaits a restart',
      ),
  })
  .describe('Answer to `hello`.');

/**
 * The one response every request gets: `status` ok with the request's result fields, or
 * error with a stable `error` code and a human-readable `message`.
 */
export const ResponseSchema = z
  .object({
    type: z.literal('response'),
    id: IdSchema,
    status: StatusSchema,
    error: ErrorCodeSchema.optional().describe('stable code when status is error'),
    message: z.string().optional().describe('human-readable detail when status is error'),
  })
  .loose()
  .describe('Answer to every request but `hello`; result fields sit beside `status`.');

/** What `capture` puts in the relay buffer: `size` is clippy's v0 field (the raw content's bytes). */
const CaptureResult = z.object({
  size: z.number().int().describe('bytes of the turn’s raw content (ANSI included)'),
  turn_id: z.string(),
  text_size: z
    .number()
    .int()
    .optional()
    .describe('bytes of the turn’s text, what a person reads and `paste` sends by default (UTF-8)'),
});

/** The webhook's deliveries: the last one that went through, the last that did not. */
const WebhookStatusSchema = z
  .object({
    last_delivery: z
      .object({
        at: z.number().describe('epoch ms'),
        event: z.string().describe('`turn`, `blocked` or `test`'),
        session: z.string().describe('the session’s name ("" for a test)'),
        url: z.string().describe('where it went, as its scheme and host'),
        status: z.number().int().describe('the HTTP status it got'),
      })
      .nullable(),
    last_error: z
      .object({
        at: z.number().describe('epoch ms'),
        event: z.string(),
        session: z.string(),
        url: z.string(),
        error: z.string().describe('what went wrong, after the retries'),
      })
      .nullable(),
    pending: z.number().int().describe('events waiting to be sent (or to be tried again)'),
  })
  .describe('webhook deliveries since the daemon started (`clippy notify` shows them)');

/** Result fields of an ok response, per request type. */
export const RESULT_SCHEMAS = {
  spawn: z.object({
    session: z.string(),
    name: z.string(),
    pid: z.number().int(),
    worktree: WorktreeInfoSchema.optional().describe('with `worktree`: the one created'),
    notes: z
      .array(z.string())
      .optional()
      .describe(
        'with `worktree`: what the user should know (uncommitted changes left behind, submodules not checked out)',
      ),
  }),
  revive: z.object({
    session: z.string().describe('the session (same ID and name as before)'),
    name: z.string(),
    pid: z.number().int(),
    command: z.string().describe('what was started'),
    args: z.array(z.string()),
  }),
  list_sessions: z.object({
    sessions: z.array(SessionInfoSchema),
    history_unavailable: z
      .string()
      .optional()
      .describe('why the turn history could not be opened: persisted sessions are not listed'),
  }),
  list_presets: z.object({
    presets: z.array(
      z.object({
        name: z.string().describe('what `spawn`’s `preset` takes'),
        kind: z.enum(['line', 'screen']).describe('how it sees a prompt (docs/presets.md)'),
        description: z.string(),
        user: z.boolean().describe('defined or changed by the user’s presets.json'),
      }),
    ),
    default: z.string().describe('the preset of a `spawn` that names none'),
  }),
  kill: z.object({
    worktree_kept: z
      .string()
      .optional()
      .describe(
        'with `remove`: the session runs in this worktree, so it stays listed (exited) instead: `diff` and `remove` still reach it; `kill` never removes a worktree',
      ),
  }),
  remove: z.object({
    worktree_removed: z
      .object({
        path: z.string().describe('the folder, gone now'),
        branch: z.string().describe('kept, with every commit on it'),
        lost: z
          .string()
          .nullable()
          .describe('with `force`: the uncommitted work that went with it; null: none'),
        link: z
          .string()
          .optional()
          .describe(
            'the folder had been replaced by a symbolic link to this: the link was removed, what it points to was left alone',
          ),
      })
      .optional()
      .describe('the session’s worktree, removed with it'),
  }),
  attach: z.object({
    session: z.string(),
    name: z.string(),
    cols: z.number().int(),
    rows: z.number().int(),
    state: SessionStateSchema,
    replay: BytesSchema.describe(
      'current screen (and bounded scrollback) as terminal bytes; live `output` follows',
    ),
    exited: z.boolean().describe('the session has already exited (no live output will follow)'),
    exit_code: z.number().int().nullable().optional(),
    exit_signal: z.string().nullable().optional(),
    terminal: z
      .boolean()
      .optional()
      .describe(
        'direct mode: true when the daemon took the terminal it was offered (it painted the replay there itself; `replay` is empty); false when it did not (`terminal_refused` says why): the client relays',
      ),
    terminal_refused: z
      .string()
      .optional()
      .describe('why the daemon did not take the offered terminal'),
  }),
  detach: z.object({}),
  input: z.object({}),
  resize: z.object({}),
  ack: z.object({}),
  send: z.object({ submitted: z.boolean().describe('Enter was pressed and the screen reacted') }),
  subscribe: z.object({}),
  unsubscribe: z.object({}),
  daemon_status: z.object({
    pid: z.number().int(),
    version: z.number().int(),
    package_version: z.string(),
    started_at: z.number(),
    uptime_ms: z.number(),
    sessions: z.number().int(),
    live_sessions: z.number().int(),
    clients: z.number().int(),
    socket: z.string(),
    ws_socket: z.string().nullable(),
    log_file: z.string().nullable(),
    log: z
      .object({
        destination: z
          .enum(['file', 'stderr', 'none', 'custom'])
          .describe(
            'where log lines go now: `log_file`, stderr (`--foreground`), `none` (the file could not be opened; it is tried again now and then) or a logger given by an embedding program',
          ),
        dropped_lines: z
          .number()
          .int()
          .describe('lines that could not be written since the daemon started (disk full, …)'),
        last_error: z
          .string()
          .nullable()
          .describe('the last error opening, writing or rotating the log'),
        last_error_at: z.number().nullable().describe('when it happened (ms since the epoch)'),
        max_bytes: z
          .number()
          .int()
          .nullable()
          .describe('size at which `log_file` is renamed to `<log_file>.1` and a new one begun'),
      })
      .describe('how logging fares: a log that cannot be written never stops the daemon'),
    rss_bytes: z.number(),
    store: StoreStatusSchema.nullable()
      .optional()
      .describe('the turn history (persistence); null when it could not be opened'),
    history_unavailable: z
      .string()
      .nullable()
      .optional()
      .describe('why the turn history could not be opened (null: it opened)'),
  }),
  shutdown: z.object({}),
  register: z.object({ session: z.string(), name: z.string() }),
  deregister: z.object({}),
  turn_completed: z.object({ turn_id: z.string() }),
  set_state: z.object({}),
  agent_event: z.object({}),
  capture: CaptureResult,
  capture_by_id: CaptureResult,
  paste: z.object({ size: z.number().int(), turn_id: z.string(), submitted: z.boolean() }),
  deliver: z.object({
    size: z.number().int(),
    turn_id: z.string(),
    submitted: z.boolean().optional(),
  }),
  put_buffer: z.object({ size: z.number().int(), turn_id: z.string() }),
  get_turn: z.object({ turn: TurnSchema }),
  list_turns: z.object({ turns: z.array(TurnMetaSchema) }),
  relay: z.object({ size: z.number().int(), turn_id: z.string(), submitted: z.boolean() }),
  wait_turn: z.object({ turn: TurnSchema }),
  focus: z.object({}),
  focused: z.object({
    session: z.string().nullable().describe('the focused session’s ID, or null: none is focused'),
    name: z.string().nullable(),
    since: z.number().nullable().describe('when its terminal reported focus (ms since the epoch)'),
    pid: z.number().int().nullable().describe('process ID of the attach client that reported it'),
  }),
  list_clients: z.object({
    clients: z.array(
      z.object({
        session: z.string().describe('ID of the session the client is attached to'),
        name: z.string(),
        pid: z
          .number()
          .int()
          .nullable()
          .describe('the client’s process ID, when it told one at attach'),
        mode: z.enum(['interactive', 'observer']),
        focused: z.boolean().describe('its terminal reported focus last'),
        terminal: z
          .boolean()
          .optional()
          .describe(
            'the daemon reads and writes this client’s terminal itself (direct attach); absent from daemons before direct attach',
          ),
      }),
    ),
  }),
  notice: z.object({
    delivered: z.number().int().describe('attached clients the notice was sent to'),
  }),
  history_search: z.object({
    results: z.array(
      z.object({
        turn: TurnMetaSchema,
        name: z.string().describe('the session’s name'),
        lines: z.array(z.string()).describe('the lines of the turn’s text that match'),
      }),
    ),
  }),
  snapshot: z.object({ snapshot: SnapshotDocSchema }),
  replay: z.object({
    turns: z.array(z.string()).describe('the turn IDs sent, oldest first'),
    size: z.number().int().describe('bytes of text injected'),
    submitted: z.boolean(),
  }),
  add_route: z.object({ route: RouteInfoSchema }),
  add_loop: z.object({ routes: z.array(RouteInfoSchema) }),
  list_routes: z.object({ routes: z.array(RouteInfoSchema) }),
  remove_route: z.object({ removed: z.array(RouteNameSchema) }),
  pause_route: z.object({ routes: z.array(RouteInfoSchema) }),
  resume_route: z.object({ routes: z.array(RouteInfoSchema) }),
  route_log: z.object({ entries: z.array(RouteLogEntrySchema) }),
  web_start: z.object({
    url: z
      .string()
      .describe(
        'http://127.0.0.1:PORT/#token=…: open it in a browser (the token is in the fragment, which the browser sends to no server)',
      ),
    port: z.number().int(),
    token: z
      .string()
      .describe(
        'random; the page exchanges it for a tab session (POST /session); other clients give it as /ws?token=…',
      ),
    started: z.boolean().describe('false: the endpoint was already running and is reused'),
    code_url: z
      .string()
      .optional()
      .describe(
        'with `code`: http://127.0.0.1:PORT/#code=…, good for one sign-in within a few minutes (the token is not in it)',
      ),
    moved: z
      .string()
      .optional()
      .describe(
        'why the web view is not on the port it had before (that port is taken by another program): pages open on the old URL must open this one',
      ),
  }),
  web_stop: z.object({ stopped: z.boolean().describe('false: no endpoint was running') }),
  list_hosts: z.object({
    hosts: z
      .array(
        z.object({
          name: z.string().describe('its name in config.json’s `hosts` (`NAME:session`)'),
          destination: z.string().describe('the ssh destination it names'),
        }),
      )
      .describe('in config.json’s order; `local` entries are this machine and not listed'),
  }),
  interrupt: z.object({
    keys: z.array(z.string()).describe('the keys pressed (`Esc` or `C-c`)'),
  }),
  diff: z.object({
    worktree: WorktreeInfoSchema.describe('the session’s worktree, with the counts just taken'),
    base: z
      .string()
      .describe(
        'the commit compared against: the merge base of `worktree.base_ref` and the worktree’s HEAD',
      ),
    files: z.array(DiffFileSchema).describe('sorted by path'),
    totals: DiffTotalsSchema,
    truncated: z
      .boolean()
      .describe(
        'detail `patch` or `text`: the hunks of the later files were left out to keep the answer under 8 MiB (their counts are there)',
      ),
    text: z
      .string()
      .optional()
      .describe(
        'detail `text`: the patch of every file, as `git diff` prints it (each line ends with a newline)',
      ),
  }),
  get_worktree: z.object({
    worktree: WorktreeInfoSchema,
    object_format: z
      .enum(['sha1', 'sha256'])
      .describe('the repository’s object format: how git names a new file’s blob'),
  }),
  notify_client: z.object({}),
  notify_settings: z.object({
    global: NotifyEffectiveSchema.describe('config.json `notify` over the defaults'),
    presets: z
      .record(z.string(), NotifyPartialSchema)
      .describe('config.json `notify.presets`, as written'),
    sessions: z
      .array(
        z.object({
          session: z.string(),
          name: z.string(),
          preset: z.string(),
          own: NotifyPartialSchema.describe('set for this session (`clippy notify --session`)'),
          effective: NotifyEffectiveSchema.describe('what is in force for it'),
        }),
      )
      .describe('live sessions'),
    clients: z
      .array(
        z.object({
          kind: z.enum(['page', 'editor']),
          viewing: z.string().nullable().describe('the session it shows (its ID), or null'),
          visible: z.boolean(),
          can_notify: z.boolean(),
        }),
      )
      .describe('the pages and editors that show notifications now (`notify_client`)'),
    desktop: z
      .string()
      .nullable()
      .describe('why the daemon cannot show desktop notifications, or null when it can'),
    webhook: WebhookStatusSchema,
  }),
  notify_test: z.object({
    sinks: z
      .array(z.string())
      .describe(
        'the places that took the test event: `page`, `desktop`, `editor`, `bell`, `webhook`',
      ),
    webhook: z
      .string()
      .nullable()
      .describe(
        'with a webhook on: what its endpoint answered (`HTTP 200`) or why it failed; else null',
      ),
  }),
} as const;

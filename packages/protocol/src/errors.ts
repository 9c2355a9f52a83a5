// No zod here: the CLI's fast path needs BrokerError and must not load zod (its schema is in
// schemas/error-code.ts).

/**
 * Stable error codes carried in `response.error` / `hello_ack.error`. The first block is
 * clippy's (kept with their names); the rest are ours. Each code's text is rendered into
 * docs/protocol.md.
 */
export const ERROR_CODES = {
  session_not_found: 'No live or exited session has that ID or name.',
  no_turn: 'The session has no completed turn yet.',
  buffer_empty: 'The relay buffer is empty: nothing was captured yet.',
  session_disconnected: 'The session is gone (its wrapper disconnected or its process exited).',
  duplicate_session: 'A live session already has that name.',
  version_mismatch:
    '`hello.version` is not the version this broker speaks. The connection is closed.',
  unknown_type: 'The message `type` is not one this broker knows.',
  payload_too_large: 'A frame announced more than 16 MiB. The connection is closed.',
  invalid_hello_id: '`hello` must carry `id` 0. The connection is closed.',
  turn_not_found: 'No stored turn has that ID (never existed, or evicted from the ring).',
  missing_field: 'A required field is absent.',
  unknown_sink: '`deliver.sink` is not `inject`, `file` or `clipboard`.',
  clipboard_failed: 'No clipboard provider worked (none installed, or it failed).',
  file_write_failed: 'The file sink could not write the path.',
  malformed_frame: 'The bytes are not a MessagePack map. The connection is closed.',
  handshake_required: 'The first message on a connection must be `hello`.',
  invalid_message: 'A field has the wrong type or value; `message` says which.',
  spawn_failed: 'The command could not be started (not found, not executable, ...).',
  cwd_not_found: 'The working directory does not exist or is not a directory.',
  session_exited: 'The session has exited: it takes no input.',
  invalid_pattern: 'The prompt pattern is not a valid regular expression or contains a newline.',
  unknown_preset: 'No preset has that name.',
  invalid_config:
    'The user’s config.json or presets.json cannot be used; `message` names the file and line.',
  not_attached: 'This connection is not attached to that session.',
  target_busy: 'The target session is not idle; retry later or force it.',
  not_submitted: 'The text was written but the target did not react to Enter.',
  input_too_long: 'The target reads lines in canonical mode and the text exceeds its line limit.',
  needs_input:
    'The target still shows its continuation prompt after the closing Enter: it wants more input than the text gave.',
  timeout: 'The wait ended before the event happened.',
  slow_consumer: 'The client fell too far behind the output and was disconnected from the session.',
  shutting_down: 'The broker is shutting down and takes no new work.',
  not_wrapper: 'Only a connection that registered the session may do this.',
  invalid_argument: 'An argument is out of range or inconsistent with another.',
  internal_error: 'The broker failed unexpectedly; the log has details.',
  history_unavailable:
    'The turn history (persistence) could not be opened at start (`daemon status` says why): `spawn {persist: true}` and `history_search` are refused.',
  not_revivable:
    'The session cannot be revived: it is still running, or its agent left no conversation clippy can resume.',
  route_not_found: 'No route or loop has that name.',
  duplicate_route: 'A route or loop already has that name.',
  invalid_template:
    'The route template is unknown (not built in, no such file in the templates dir) or does not parse.',
  handshake_timeout: 'No `hello` arrived in time after connecting. The connection is closed.',
  web_unavailable:
    'The web view endpoint could not start: the port is taken or the page assets are missing.',
  host_unreachable:
    'The web view could not reach that host’s daemon (config.json `hosts`): not a host there, SSH failed, or no daemon answers; `message` says why. The connection is closed.',
  frame_timeout: 'A frame was started and not finished in time. The connection is closed.',
  partial_frame_limit:
    'Unfinished frames of all connections together would pass the broker’s memory bound; the connection that would pass it is closed.',
  too_many_connections:
    'More connections were waiting to say `hello` on the socket than the broker admits; the one waiting longest is closed. Retry.',
  not_a_git_repository: '`spawn` with `worktree`: the working directory is in no git working tree.',
  bare_repository:
    '`spawn` with `worktree`: the repository is bare (it has no working tree to branch from).',
  branch_exists: '`spawn` with `worktree`: the branch `clippy/NAME` exists already.',
  worktree_exists:
    '`spawn` with `worktree`: the worktree’s folder exists already (an earlier worktree, dirty, clean or locked); `message` says which.',
  no_worktree: 'The session runs in no worktree of its own (`clippy new --worktree` makes one).',
  worktree_has_changes:
    '`remove`: the session’s worktree holds uncommitted or unmerged work; `message` lists it (`force` removes it anyway).',
  worktree_locked: '`remove`: the session’s worktree is locked (`git worktree unlock` frees it).',
  worktree_replaced:
    '`remove`: the session’s worktree folder was replaced by a symbolic link, which clippy never follows; `force` removes the link (never what it points to) and the session.',
  unauthorized:
    'An agent report did not carry the secret its session’s agent was given: it is ignored (the session notes it).',
  git_failed:
    'git could not do what was asked (not installed, a bad ref, …); `message` has its words.',
} as const;

export type ErrorCode = keyof typeof ERROR_CODES;

/** Codes after which the broker closes the connection (protocol-level errors only). */
export const FATAL_ERROR_CODES: ReadonlySet<ErrorCode> = new Set<ErrorCode>([
  'version_mismatch',
  'payload_too_large',
  'invalid_hello_id',
  'malformed_frame',
  'handshake_timeout',
  'frame_timeout',
  'partial_frame_limit',
  'too_many_connections',
]);

/**
 * Marks a BrokerError made by any copy of this module. The CLI's bundle holds a copy of protocol
 * beside node_modules' one, and errors cross between them: `clippy acp` hands the bundle's client
 * to the ACP server, which is loaded from node_modules when the command runs.
 */
const BROKER_ERROR = Symbol.for('clippy.BrokerError');

/** An error answer from the broker, as a value a client can throw or inspect. */
export class BrokerError extends Error {
  /**
   * `err instanceof BrokerError` holds for another copy's BrokerError too (see BROKER_ERROR);
   * a subclass (VersionMismatchError) keeps the usual test.
   */
  static override [Symbol.hasInstance](value: unknown): boolean {
    if (Function.prototype[Symbol.hasInstance].call(this, value)) return true;
    return (
      this === BrokerError &&
      typeof value === 'object' &&
      value !== null &&
      (value as Record<symbol, unknown>)[BROKER_ERROR] === true
    );
  }

  readonly [BROKER_ERROR] = true;

  constructor(
    readonly code: ErrorCode | string,
    message?: string,
  ) {
    super(message ? `${message} (${code})` : String(code));
    this.name = 'BrokerError';
  }
}

/**
 * The names of the pushes (`PUSH_SCHEMAS`' keys) without their schemas: a client that does not
 * validate (the CLI's fast path) tells pushes from responses without loading zod.
 * push-types.test.ts keeps the two lists equal.
 */
export const PUSH_TYPE_NAMES: ReadonlySet<string> = new Set([
  'output',
  'exit',
  'detached',
  'inject',
  'daemon_shutdown',
  'notice',
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
  'notification',
  'unread_changed',
]);

import { z } from 'zod';
import { RouteEndSchema, RouteLogEntrySchema, RouteNameSchema } from './routes.js';
import {
  BytesSchema,
  MenuSchema,
  SessionInfoSchema,
  SessionStateSchema,
  TurnMetaSchema,
} from './common.js';

/** Builds a broker→client push schema: `{ type, id: 0, ...fields }`. */
function push<T extends string, S extends z.ZodRawShape>(type: T, description: string, shape: S) {
  return z.object({ type: z.literal(type), id: z.literal(0), ...shape }).describe(description);
}

export const OutputPushSchema = push('output', 'Live PTY output of an attached session.', {
  session: z.string(),
  data: BytesSchema,
});
export const ExitPushSchema = push(
  'exit',
  'The attached session’s process exited (after its output was drained: with direct attach, written into the terminal).',
  {
    session: z.string(),
    exit_code: z.number().int().nullable(),
    signal: z.string().nullable(),
  },
);
export const DetachedPushSchema = push(
  'detached',
  'The broker detached this connection from a session.',
  {
    session: z.string(),
    reason: z
      .enum(['slow_consumer', 'session_removed', 'daemon_shutdown', 'detach_key', 'terminal_lost'])
      .describe(
        '`detach_key`: the user typed the detach key in a terminal the daemon reads (direct attach); `terminal_lost`: that terminal failed (e.g. it closed). With direct attach the push comes once the daemon has given the terminal back (modes restored, its writes drained)',
      ),
    message: z.string(),
  },
);
export const InjectPushSchema = push(
  'inject',
  'Text for a wrapper’s session input (clippy’s `inject`).',
  {
    session: z.string(),
    content: BytesSchema,
    text: z.string(),
    enter: z.boolean(),
  },
);
export const DaemonShutdownPushSchema = push(
  'daemon_shutdown',
  'The broker is stopping; the connection closes next.',
  {
    reason: z.string(),
  },
);

export const NoticePushSchema = push(
  'notice',
  'A one-line message for the user of an attached terminal (e.g. hotkey feedback).',
  {
    session: z.string(),
    text: z.string(),
  },
);

// --- events (after `subscribe`) ---
export const SessionCreatedEventSchema = push(
  'session_created',
  'A session was spawned or registered.',
  {
    session: SessionInfoSchema,
  },
);
export const SessionReadyEventSchema = push(
  'session_ready',
  'The session showed its first prompt.',
  {
    session: z.string(),
    name: z.string(),
  },
);
export const StateChangedEventSchema = push('state_changed', 'The session’s state changed.', {
  session: z.string(),
  name: z.string(),
  state: SessionStateSchema,
  previous: SessionStateSchema,
  menu: MenuSchema.optional().describe(
    'with `blocked`: the question and choices on the screen (`list_sessions` has them as they change)',
  ),
});
export const SessionResizedEventSchema = push(
  'session_resized',
  'The session’s terminal size changed (a driving client, a fit, or its driver left).',
  {
    session: z.string(),
    name: z.string(),
    cols: z.number().int(),
    rows: z.number().int(),
  },
);
export const TurnCompletedEventSchema = push('turn_completed', 'A turn completed and was stored.', {
  session: z.string(),
  name: z.string(),
  turn: TurnMetaSchema,
});
export const SessionExitedEventSchema = push('session_exited', 'A session’s process exited.', {
  session: z.string(),
  name: z.string(),
  exit_code: z.number().int().nullable(),
  signal: z.string().nullable(),
});
export const SessionRemovedEventSchema = push(
  'session_removed',
  'A session was removed from the table.',
  {
    session: z.string(),
    name: z.string(),
  },
);
export const RouteFiredEventSchema = push(
  'route_fired',
  'A route injected a message: which source turns went into which session.',
  {
    route: RouteNameSchema,
    turn_ids: z.array(z.string()),
    to: RouteEndSchema,
    size: z.number().int().describe('bytes injected'),
  },
);
export const TurnProgressEventSchema = push(
  'turn_progress',
  'The text of a turn while it grows (only to connections that name this event in `subscribe`).',
  {
    session: z.string(),
    name: z.string(),
    text: z
      .string()
      .describe(
        'the whole text so far, extracted as the completed turn’s `text` will be; its last line may still change, and the completed turn’s text is authoritative',
      ),
  },
);
export const RouteEventSchema = push(
  'route_event',
  'An entry of the route log, as it is written.',
  {
    entry: RouteLogEntrySchema,
  },
);

export const NotificationPushSchema = push(
  'notification',
  'Show the user a notification (to one `notify_client` connection of a kind per event; docs/notify.md).',
  {
    session: z.string(),
    name: z.string(),
    event: z.enum(['turn', 'blocked']).describe('a turn finished, or the session waits for you'),
    title: z.string(),
    body: z.string().describe('the question asked, or the start of the answer'),
    turn_id: z.string().optional().describe('with `turn`: the finished turn'),
    sound: z.boolean().describe('the user asked for a sound with it (`notify.sound`)'),
    choices: z
      .array(
        z.object({
          label: z.string(),
          keys: z.array(z.string()).describe('the keys that pick it (`send` with `keys`)'),
        }),
      )
      .optional()
      .describe('with `blocked`: the question’s choices, as read from the screen'),
  },
);
export const UnreadChangedEventSchema = push(
  'unread_changed',
  'A session’s unread turns changed: a turn finished that nobody looked at, or its turns were shown.',
  {
    session: z.string(),
    name: z.string(),
    unread: z.number().int().min(0),
  },
);

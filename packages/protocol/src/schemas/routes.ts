import { z } from 'zod';

// Routes: a session's completed turns injected into another session by the daemon itself
// (docs/routes.md). Shapes shared by the requests, responses and pushes that carry them.

/** The longest hop chain a route may set: a bound on automatic injections set off by one turn. */
export const MAX_ROUTE_HOP_LIMIT = 100;

/** Route and loop names: short and printable (they are typed on command lines). */
export const RouteNameSchema = z
  .string()
  .min(1)
  .max(64)
  .regex(
    /^[A-Za-z0-9][A-Za-z0-9._-]*$/u,
    'letters, digits, ".", "_" and "-", first a letter or digit',
  )
  .describe('a route (or loop) name');

export const RouteEndSchema = z.object({
  session: z.string().describe('session ID'),
  name: z.string().describe('session name'),
});

export const RouteKindSchema = z
  .enum(['route', 'fan_in', 'loop'])
  .describe(
    '`route`: each turn of FROM; `fan_in`: the next turn of every source, combined; `loop`: one leg of a two-agent loop',
  );

export const RouteStateSchema = z
  .enum(['active', 'paused', 'ended'])
  .describe(
    '`paused` by a user, because its target exited, or because its target did not take a message it sent (`failed`); `ended` once a source exited or its loop ended',
  );

export const RouteInfoSchema = z.object({
  route: RouteNameSchema,
  kind: RouteKindSchema,
  from: z.array(RouteEndSchema).min(1),
  to: RouteEndSchema,
  template: z.string().describe('built-in or user template name (`wrap` when --wrap was given)'),
  when: z.string().nullable().describe('only turns whose text matches this pattern'),
  include_interrupted: z.boolean(),
  hop_limit: z.number().int(),
  state: RouteStateSchema,
  reason: z.string().nullable().describe('why it is paused or ended'),
  fired: z.number().int().describe('injections made'),
  queued: z.number().int().describe('messages waiting for the target to be idle'),
  created_at: z.number(),
  failed: z
    .boolean()
    .optional()
    .describe(
      'paused because its target did not take a message it sent, even when tried again (`reason` says why); resuming it sends that message again',
    ),
  loop: z
    .object({
      name: RouteNameSchema,
      until: z.string(),
      rounds: z.number().int(),
      round: z.number().int().describe('rounds started so far'),
    })
    .nullable(),
});
export type RouteInfo = z.infer<typeof RouteInfoSchema>;

export const RouteLogEventSchema = z.enum([
  'added',
  'fired',
  'queued',
  'skipped',
  'dropped',
  'paused',
  'resumed',
  'ended',
  'removed',
  'failed',
]);

export const RouteLogEntrySchema = z.object({
  at: z.number().describe('epoch ms'),
  route: RouteNameSchema,
  event: RouteLogEventSchema,
  turn_ids: z.array(z.string()).describe('the source turns concerned'),
  to: z.string().nullable().describe('target session name'),
  reason: z.string().nullable().describe('why (skipped, dropped, paused, ended, failed)'),
});
export type RouteLogEntry = z.infer<typeof RouteLogEntrySchema>;

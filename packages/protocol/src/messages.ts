import { z } from 'zod';
import * as Q from './schemas/requests.js';
import * as P from './schemas/pushes.js';
import { HelloAckSchema, RESULT_SCHEMAS, ResponseSchema } from './schemas/responses.js';

/** Every request a client may send, keyed by `type`. */
export const REQUEST_SCHEMAS = {
  hello: Q.HelloSchema,
  spawn: Q.SpawnSchema,
  revive: Q.ReviveSchema,
  list_sessions: Q.ListSessionsSchema,
  list_presets: Q.ListPresetsSchema,
  kill: Q.KillSchema,
  remove: Q.RemoveSchema,
  attach: Q.AttachSchema,
  detach: Q.DetachSchema,
  input: Q.InputSchema,
  resize: Q.ResizeSchema,
  ack: Q.AckSchema,
  send: Q.SendSchema,
  subscribe: Q.SubscribeSchema,
  unsubscribe: Q.UnsubscribeSchema,
  daemon_status: Q.DaemonStatusSchema,
  shutdown: Q.ShutdownSchema,
  register: Q.RegisterSchema,
  deregister: Q.DeregisterSchema,
  turn_completed: Q.TurnCompletedSchema,
  set_state: Q.SetStateSchema,
  agent_event: Q.AgentEventSchema,
  capture: Q.CaptureSchema,
  capture_by_id: Q.CaptureByIdSchema,
  paste: Q.PasteSchema,
  deliver: Q.DeliverSchema,
  put_buffer: Q.PutBufferSchema,
  get_turn: Q.GetTurnSchema,
  list_turns: Q.ListTurnsSchema,
  relay: Q.RelaySchema,
  wait_turn: Q.WaitTurnSchema,
  focus: Q.FocusSchema,
  focused: Q.FocusedSchema,
  list_clients: Q.ListClientsSchema,
  notice: Q.NoticeSchema,
  history_search: Q.HistorySearchSchema,
  snapshot: Q.SnapshotSchema,
  replay: Q.ReplaySchema,
  add_route: Q.AddRouteSchema,
  add_loop: Q.AddLoopSchema,
  list_routes: Q.ListRoutesSchema,
  remove_route: Q.RemoveRouteSchema,
  pause_route: Q.PauseRouteSchema,
  resume_route: Q.ResumeRouteSchema,
  route_log: Q.RouteLogSchema,
  web_start: Q.WebStartSchema,
  web_stop: Q.WebStopSchema,
  list_hosts: Q.ListHostsSchema,
  interrupt: Q.InterruptSchema,
  diff: Q.DiffSchema,
  get_worktree: Q.GetWorktreeSchema,
  notify_client: Q.NotifyClientSchema,
  notify_settings: Q.NotifySettingsSchema,
  notify_test: Q.NotifyTestSchema,
} as const;

/** Every message the broker may push unasked (`id` 0), keyed by `type`. */
export const PUSH_SCHEMAS = {
  output: P.OutputPushSchema,
  exit: P.ExitPushSchema,
  detached: P.DetachedPushSchema,
  inject: P.InjectPushSchema,
  daemon_shutdown: P.DaemonShutdownPushSchema,
  notice: P.NoticePushSchema,
  session_created: P.SessionCreatedEventSchema,
  session_ready: P.SessionReadyEventSchema,
  state_changed: P.StateChangedEventSchema,
  turn_completed: P.TurnCompletedEventSchema,
  session_exited: P.SessionExitedEventSchema,
  session_removed: P.SessionRemovedEventSchema,
  route_fired: P.RouteFiredEventSchema,
  route_event: P.RouteEventSchema,
  turn_progress: P.TurnProgressEventSchema,
  session_resized: P.SessionResizedEventSchema,
  notification: P.NotificationPushSchema,
  unread_changed: P.UnreadChangedEventSchema,
} as const;

export type RequestType = keyof typeof REQUEST_SCHEMAS;
export type PushType = keyof typeof PUSH_SCHEMAS;
/** Requests that have a result (all but the handshake, answered by `hello_ack`). */
export type ResultType = Exclude<RequestType, 'hello'>;

export type Request<T extends RequestType = RequestType> = z.output<(typeof REQUEST_SCHEMAS)[T]>;
/** What a caller passes (defaults not yet applied), without `id` (the client assigns it). */
export type RequestInput<T extends RequestType> = Omit<z.input<(typeof REQUEST_SCHEMAS)[T]>, 'id'>;
export type Result<T extends ResultType> = z.output<(typeof RESULT_SCHEMAS)[T]>;
export type Push<T extends PushType = PushType> = z.output<(typeof PUSH_SCHEMAS)[T]>;

/** Client → broker: one discriminated union over `type`. */
export const ClientMessageSchema = z.discriminatedUnion(
  'type',
  Object.values(REQUEST_SCHEMAS) as unknown as [
    (typeof REQUEST_SCHEMAS)[RequestType],
    ...(typeof REQUEST_SCHEMAS)[RequestType][],
  ],
);
export type ClientMessage = z.output<typeof ClientMessageSchema>;

/** Broker → client: responses, the handshake answer, and pushes. */
export const ServerMessageSchema = z.union([
  HelloAckSchema,
  ResponseSchema,
  ...Object.values(PUSH_SCHEMAS),
]);
export type ServerMessage = z.output<typeof ServerMessageSchema>;
export type HelloAck = z.output<typeof HelloAckSchema>;
export type Response = z.output<typeof ResponseSchema>;

export function isRequestType(type: unknown): type is RequestType {
  return typeof type === 'string' && Object.hasOwn(REQUEST_SCHEMAS, type);
}

export function isPushType(type: unknown): type is PushType {
  return typeof type === 'string' && Object.hasOwn(PUSH_SCHEMAS, type);
}

export { HelloAckSchema, ResponseSchema, RESULT_SCHEMAS };

import type { HandlerTable } from './context.js';
import { ack } from './ack.js';
import { agentEvent } from './agent-event.js';
import { revive } from './revive.js';
import { attach } from './attach.js';
import { capture } from './capture.js';
import { captureById } from './capture-by-id.js';
import { daemonStatus } from './daemon-status.js';
import { deliver } from './deliver.js';
import { deregister } from './deregister.js';
import { detach } from './detach.js';
import { focus } from './focus.js';
import { focused } from './focused.js';
import { getTurn } from './get-turn.js';
import { getWorktree } from './get-worktree.js';
import { input } from './input.js';
import { kill } from './kill.js';
import { listSessions } from './list-sessions.js';
import { listClients } from './list-clients.js';
import { listPresets } from './list-presets.js';
import { listTurns } from './list-turns.js';
import { notice } from './notice.js';
import { paste } from './paste.js';
import { putBuffer } from './put-buffer.js';
import { register } from './register.js';
import { relay } from './relay.js';
import { remove } from './remove.js';
import { resize } from './resize.js';
import { send } from './send.js';
import { setState } from './set-state.js';
import { shutdown } from './shutdown.js';
import { spawn } from './spawn.js';
import { subscribe } from './subscribe.js';
import { turnCompleted } from './turn-completed.js';
import { unsubscribe } from './unsubscribe.js';
import { waitTurn } from './wait-turn.js';
import { historySearch } from './history-search.js';
import { snapshot } from './snapshot.js';
import { replay } from './replay.js';
import { addRoute } from './add-route.js';
import { addLoop } from './add-loop.js';
import { listRoutes } from './list-routes.js';
import { removeRoute } from './remove-route.js';
import { pauseRoute } from './pause-route.js';
import { resumeRoute } from './resume-route.js';
import { routeLog } from './route-log.js';
import { webStart } from './web-start.js';
import { webStop } from './web-stop.js';
import { listHosts } from './list-hosts.js';
import { interrupt } from './interrupt.js';
import { diff } from './diff.js';
import { notifyClient } from './notify-client.js';
import { notifySettings } from './notify-settings.js';
import { notifyTest } from './notify-test.js';

/** One handler per request type (tmux's cmd-*.c table); `hello` is handled by the connection. */
export const HANDLERS: HandlerTable = {
  spawn,
  list_sessions: listSessions,
  list_presets: listPresets,
  kill,
  remove,
  attach,
  detach,
  input,
  resize,
  ack,
  send,
  subscribe,
  unsubscribe,
  daemon_status: daemonStatus,
  shutdown,
  register,
  deregister,
  turn_completed: turnCompleted,
  set_state: setState,
  agent_event: agentEvent,
  revive,
  capture,
  capture_by_id: captureById,
  paste,
  deliver,
  put_buffer: putBuffer,
  get_turn: getTurn,
  list_turns: listTurns,
  relay,
  wait_turn: waitTurn,
  focus,
  focused,
  list_clients: listClients,
  notice,
  history_search: historySearch,
  snapshot,
  replay,
  add_route: addRoute,
  add_loop: addLoop,
  list_routes: listRoutes,
  remove_route: removeRoute,
  pause_route: pauseRoute,
  resume_route: resumeRoute,
  route_log: routeLog,
  web_start: webStart,
  web_stop: webStop,
  list_hosts: listHosts,
  interrupt,
  diff,
  get_worktree: getWorktree,
  notify_client: notifyClient,
  notify_settings: notifySettings,
  notify_test: notifyTest,
};

import type {
  AgentContext,
  PermissionOption,
  PermissionOptionKind,
  ToolCallContent,
} from '@agentclientprotocol/sdk';
import type { Menu } from '@clippy/protocol';

/** Choices that decline (`No, and tell Claude…`, `Cancel (N)…`, `Don't trust`, `Back…`). */
const REJECTS =
  /^(?:no\b|n$|reject|deny|decline|cancel|don'?t trust|do not|back\b|exit\b|quit\b)/iu;
/** Choices that allow for longer than this once (`…don't ask again…`, `…for this session`). */
const ALWAYS =
  /\b(?:always|don'?t ask again|for (?:this|the rest of the|the) (?:running )?session|all (?:edits|tools)|trust)\b/iu;

/** What an editor should make of a choice: allow or reject, once or from now on. */
export function optionKind(label: string): PermissionOptionKind {
  const reject = REJECTS.test(label.trim());
  const always = ALWAYS.test(label);
  if (reject) return always ? 'reject_always' : 'reject_once';
  return always ? 'allow_always' : 'allow_once';
}

/** The menu's choices as ACP permission options; an option's ID is its position in the menu. */
export function permissionOptions(menu: Menu): PermissionOption[] {
  return menu.options.map((o, i) => ({
    optionId: String(i),
    name: o.label,
    kind: optionKind(o.label),
  }));
}

/** The question as a tool call an editor shows: the question, and the dialog's detail. */
export function questionToolCall(menu: Menu | null, toolCallId: string, waiting: string) {
  const title = menu?.question || waiting;
  const content: ToolCallContent[] =
    menu && menu.detail.length > 0
      ? [{ type: 'content', content: { type: 'text', text: menu.detail.join('\n') } }]
      : [];
  return {
    toolCallId,
    title,
    kind: 'other' as const,
    status: 'pending' as const,
    content,
    rawInput: menu
      ? { question: menu.question, detail: menu.detail, options: menu.options.map((o) => o.label) }
      : {},
  };
}

/**
 * Asks the editor which choice to take: the question is shown as a tool call, then
 * `session/request_permission` with the menu's choices. Resolves with the chosen choice's
 * position, or null when the editor cancelled (or `signal` aborted: the question went away).
 */
export async function askEditor(
  client: AgentContext,
  sessionId: string,
  menu: Menu,
  toolCallId: string,
  signal: AbortSignal,
): Promise<number | null> {
  const call = questionToolCall(menu, toolCallId, menu.question);
  await client.notify('session/update', {
    sessionId,
    update: { sessionUpdate: 'tool_call', ...call },
  });
  let outcome;
  try {
    outcome = await client.request(
      'session/request_permission',
      {
        sessionId,
        toolCall: { toolCallId, title: call.title, kind: call.kind, status: call.status },
        options: permissionOptions(menu),
      },
      { cancellationSignal: signal, stopWaitingOnCancel: true },
    );
  } catch (err) {
    if (signal.aborted) return null;
    throw err;
  }
  if (outcome.outcome.outcome !== 'selected') return null;
  const index = Number(outcome.outcome.optionId);
  return Number.isInteger(index) && index >= 0 && index < menu.options.length ? index : null;
}

/** Marks the question's tool call answered (with the choice taken) or gone. */
export async function settleToolCall(
  client: AgentContext,
  sessionId: string,
  toolCallId: string,
  title: string,
): Promise<void> {
  await client.notify('session/update', {
    sessionId,
    update: { sessionUpdate: 'tool_call_update', toolCallId, status: 'completed', title },
  });
}

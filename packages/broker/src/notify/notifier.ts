import { hostname } from 'node:os';
import type { TurnMeta } from '@clippy/protocol';
import type { FocusState } from '../focus/focus-state.js';
import type { Logger } from '../log.js';
import type { Session, SessionClient } from '../sessions/session.js';
import { BellOutput } from './bell-output.js';
import { ClientOutput } from './client-output.js';
import { DesktopOutput } from './desktop-output.js';
import { NotifyClients, type NotifyClient } from './notify-clients.js';
import { blockedDialog, sameQuestion, withRead, type BlockedDialog } from './blocked-dialog.js';
import type { NotifyEvent } from './notify-event.js';
import { NotifySettings, type NotifyInForce } from './notify-settings.js';
import type { WebhookEvent } from './webhook-format.js';
import { WebhookOutput, type WebhookStatus } from './webhook-output.js';

export interface NotifierHost {
  env: Record<string, string | undefined>;
  log: Logger;
  focus: FocusState;
  attachedClients(): Map<SessionClient, Session[]>;
  /** A session's unread count changed: `list_sessions` readers learn it from a state event. */
  unreadChanged?(session: Session): void;
  /** The web view's link to a session (without its token), or null while it does not run. */
  webUrl?(session: Session | null): string | null;
}

/**
 * After the user answered a question, how long a new one must stay on screen to be told: an
 * agent closing its dialog can be read with part of it still drawn (Qwen Code's tool line taken
 * for the question) for a moment; a new question waits for its answer.
 */
export const BLOCKED_AFTER_ANSWER_MS = 500;

/** What was last notified of a session: an event is told once, however often it is reported. */
interface Told {
  turnSeq: number;
  /** The question last told, with every read of it since (half-drawn, whole, closing). */
  blocked: BlockedDialog | null;
  /** The turn count and the session's input bytes when that `blocked` was told. */
  blockedTurn: number;
  blockedInput: number;
}

/**
 * Notifications and unread turns (docs/notify.md). Decides once per event — a turn finished,
 * a session waits for you — whether to tell the user and where: not for a session they look at
 * (an interactive attach whose terminal has focus, a visible page on it, the focused editor
 * showing it); then, as the settings say, a page's notification or else the desktop's (one
 * popup), the editor's, and the bell. Each output is handed the event at most once.
 */
export class Notifier {
  readonly clients = new NotifyClients();
  readonly settings: NotifySettings;
  private readonly desktop: DesktopOutput;
  private readonly page: ClientOutput;
  private readonly editor: ClientOutput;
  private readonly bell: BellOutput;
  private readonly webhook: WebhookOutput;
  private readonly told = new Map<string, Told>();
  /** Sessions blocked again after an answer, told once that lasted (BLOCKED_AFTER_ANSWER_MS). */
  private readonly settling = new Map<string, NodeJS.Timeout>();

  constructor(private readonly host: NotifierHost) {
    this.settings = new NotifySettings(host.env, (message) =>
      host.log.warn({ err: message }, 'notify settings unreadable: the last good ones stay'),
    );
    this.desktop = new DesktopOutput(host.env, host.log);
    this.page = new ClientOutput(this.clients, 'page');
    this.editor = new ClientOutput(this.clients, 'editor');
    this.bell = new BellOutput(host);
    this.webhook = new WebhookOutput(host.log);
  }

  /** The user looks at this session now: nothing to tell them about it. */
  lookedAt(session: Session): boolean {
    const f = this.host.focus.focused();
    if (f && f.session === session && session.attachMode(f.client) === 'interactive') return true;
    return this.clients.shows(session);
  }

  /** Someone sees the session's output as it comes: an attached client, or a visible page or editor. */
  private shown(session: Session): boolean {
    return session.clientCount > 0 || this.clients.shows(session);
  }

  turnCompleted(session: Session, turn: TurnMeta): void {
    // A client that waited for this answer (`ask`, `wait`, an editor's Ask) shows it itself.
    const awaited = session.turns?.lastAwaitedSeq === turn.seq;
    if (awaited || this.shown(session)) session.markRead(turn.seq);
    const told = this.toldOf(session);
    if (turn.seq <= told.turnSeq) return;
    told.turnSeq = turn.seq;
    // Stopped by someone (Ctrl-C, Esc): they are there. A navigator reports its own end.
    if (awaited || turn.interrupted || session.kind === 'navigator') return;
    const body = turn.preview?.trim() || `turn ${turn.turn_id}`;
    this.tell(session, 'turn', {
      session,
      sessionId: session.id,
      name: session.name,
      event: 'turn',
      title: `${session.name}: turn finished`,
      body,
      // The answer whole (a webhook carries it), as `clippy show` gives it.
      text: session.turns?.ring.get(turn.seq)?.text ?? body,
      turnId: turn.turn_id,
      sound: false,
    });
  }

  stateChanged(session: Session): void {
    if (session.state !== 'blocked') {
      this.settled(session);
      return;
    }
    const told = this.toldOf(session);
    const afterAnswer =
      told.blocked !== null &&
      told.blockedTurn === session.turnCount &&
      session.inputBytes !== told.blockedInput;
    if (!afterAnswer) this.blocked(session);
    else if (!this.settling.has(session.id)) {
      const timer = setTimeout(() => {
        this.settling.delete(session.id);
        if (session.state === 'blocked') this.blocked(session);
      }, BLOCKED_AFTER_ANSWER_MS);
      timer.unref();
      this.settling.set(session.id, timer);
    }
  }

  /** No longer blocked: a question that did not last is not told. */
  private settled(session: Session): void {
    const timer = this.settling.get(session.id);
    if (timer) clearTimeout(timer);
    this.settling.delete(session.id);
  }

  /** The session waits for its user: told, unless it is the question already told. */
  private blocked(session: Session): void {
    const told = this.toldOf(session);
    const menu = session.menu;
    // The question told, drawn again after a flap or read half-drawn as it opens or closes
    // (before or after the answer), is the same event.
    const dialog = blockedDialog(session.turnCount, menu);
    if (told.blocked && sameQuestion(told.blocked, dialog)) {
      told.blocked = withRead(told.blocked, dialog);
      return;
    }
    // A question drawn otherwise while nobody answered is the one told too: a new one needs a
    // new turn or the user's input since.
    const answered = session.inputBytes !== told.blockedInput;
    const unanswered = told.blocked !== null && told.blockedTurn === session.turnCount && !answered;
    told.blocked = unanswered ? withRead(told.blocked!, dialog) : dialog;
    if (unanswered) return;
    told.blockedTurn = session.turnCount;
    told.blockedInput = session.inputBytes;
    const body = menu?.question || 'it waits for your input';
    this.tell(session, 'blocked', {
      session,
      sessionId: session.id,
      name: session.name,
      event: 'blocked',
      title: `${session.name} needs you`,
      body,
      text: body,
      question: menu?.question || null,
      choices: (menu?.options ?? []).map((o) => ({ label: o.label, keys: o.keys })),
      sound: false,
    });
  }

  /**
   * Something about the session needs the user that is not a question on its screen (a route
   * into it stopped because it did not take a message): told as a `blocked` event, where and
   * when a question would be.
   */
  needsYou(session: Session, title: string, body: string): void {
    this.tell(session, 'blocked', {
      session,
      sessionId: session.id,
      name: session.name,
      event: 'blocked',
      title,
      body,
      text: body,
      question: null,
      choices: [],
      sound: false,
    });
  }

  /** A page or editor says what it shows: a visible one reads the session's turns. */
  report(connection: SessionClient, client: NotifyClient): void {
    this.clients.set(connection, client);
    if (client.visible && client.viewing) this.read(client.viewing);
  }

  /** The session's turns were shown to a person (attach, show, focus). */
  read(session: Session, seq?: number): void {
    if (session.markRead(seq)) this.host.unreadChanged?.(session);
  }

  connectionClosed(connection: SessionClient): void {
    this.clients.delete(connection);
  }

  sessionRemoved(session: Session): void {
    this.settled(session);
    this.told.delete(session.id);
    this.settings.forget(session.id);
  }

  private toldOf(session: Session): Told {
    let t = this.told.get(session.id);
    if (!t) {
      t = { turnSeq: 0, blocked: null, blockedTurn: 0, blockedInput: 0 };
      this.told.set(session.id, t);
    }
    return t;
  }

  private tell(session: Session, kind: 'turn' | 'blocked', event: NotifyEvent): void {
    const s = this.settings.effective(session);
    if (!s[kind] || this.lookedAt(session)) return;
    const sinks = this.handOut(event, s);
    this.host.log.info({ session: session.id, event: kind, sinks }, 'notified');
  }

  /** Hands the event to every place that is on; returns the places that took it. */
  private handOut(event: NotifyEvent, s: NotifyInForce): string[] {
    event.sound = s.sound;
    const sinks: string[] = [];
    // A page's notification is a desktop popup too: one of the two, the page's first (a click
    // on it opens the session there).
    if (s.page && this.page.deliver(event)) sinks.push('page');
    else if (s.desktop && this.desktop.deliver(event)) sinks.push('desktop');
    if (s.editor && this.editor.deliver(event)) sinks.push('editor');
    if (s.bell && this.bell.deliver(event)) sinks.push('bell');
    if (s.webhook && this.webhook.deliver(this.webhookEvent(event), webhookOf(s))) {
      sinks.push('webhook');
    }
    return sinks;
  }

  private webhookEvent(e: NotifyEvent, test = false): WebhookEvent {
    return {
      event: test ? 'test' : e.event,
      session: e.sessionId,
      name: e.name,
      host: hostname(),
      text: e.text,
      ...(e.event === 'blocked' && !test
        ? { question: e.question ?? null, choices: (e.choices ?? []).map((c) => c.label) }
        : {}),
      ...(e.turnId ? { turnId: e.turnId } : {}),
      url: this.host.webUrl?.(e.session) ?? null,
    };
  }

  /**
   * `clippy notify --test`: one event to every place that is on globally, whatever the quiet
   * rules say; the webhook is tried once and its answer awaited.
   */
  async test(): Promise<{ sinks: string[]; webhook: string | null }> {
    const s = this.settings.effective(null);
    const text = 'This is a test notification from clippy: notifications reach you here.';
    const event: NotifyEvent = {
      session: null,
      sessionId: '',
      name: 'clippy',
      event: 'turn',
      title: 'clippy: test notification',
      body: text,
      text,
      sound: s.sound,
    };
    const sinks = this.handOut(event, { ...s, webhook: null });
    let webhook: string | null = null;
    if (s.webhook) {
      webhook = await this.webhook.test(this.webhookEvent(event, true), webhookOf(s));
      if (webhook.startsWith('HTTP 2')) sinks.push('webhook');
    }
    this.host.log.info({ sinks }, 'test notification sent');
    return { sinks, webhook };
  }

  webhookStatus(): WebhookStatus {
    return this.webhook.status();
  }

  /** Why desktop notifications cannot be shown, or null. */
  desktopUnavailable(): string | null {
    return this.desktop.unavailable();
  }

  dispose(): void {
    for (const timer of this.settling.values()) clearTimeout(timer);
    this.settling.clear();
    this.desktop.dispose();
    this.webhook.dispose();
  }
}

function webhookOf(s: NotifyInForce): { url: string; format: NotifyInForce['webhookFormat'] } {
  return { url: s.webhook!, format: s.webhookFormat };
}

import * as vscode from 'vscode';
import type { ClippyClient } from '@clippy/client';
import {
  EventNameSchema,
  type EventName,
  type Push,
  type RouteInfo,
  type SessionInfo,
} from '@clippy/protocol';
import type { DaemonLink } from './daemon-link.js';
import { messageOf } from './errors.js';
import { REQUEST_TIMEOUT_MS } from './limits.js';

/** The daemon's session events, pushed after `subscribe`. */
export type SessionEvent = Push<EventName>;

/** Every event the daemon pushes after `subscribe`: each one can change what the view shows. */
const EVENTS: ReadonlySet<string> = new Set<EventName>(EventNameSchema.options);

/** Whether the model follows a daemon now, and why not when it does not. */
export type ModelStatus =
  { kind: 'connecting' } | { kind: 'connected' } | { kind: 'offline'; reason: string };

/**
 * What the daemon says about its sessions and routes, as the view, the status bar and the
 * pickers show it. Nothing here is the extension's own: every change is the daemon's push
 * (`subscribe`) followed by one re-read of the lists per burst of events; nothing polls.
 */
export class SessionModel implements vscode.Disposable {
  private list: SessionInfo[] = [];
  private routeList: RouteInfo[] = [];
  private state: ModelStatus = { kind: 'connecting' };
  private reading = false;
  private readAgain = false;
  private readonly changed = new vscode.EventEmitter<void>();
  private readonly events = new vscode.EventEmitter<SessionEvent>();
  private readonly owned: vscode.Disposable[] = [];
  private offPushes: (() => void) | null = null;
  /** The lists changed (or the connection did). */
  readonly onDidChange = this.changed.event;
  /** Each session event as the daemon pushed it. */
  readonly onEvent = this.events.event;
  private readonly notifications = new vscode.EventEmitter<Push<'notification'>>();
  /** A notification the daemon chose this editor to show (docs/notify.md). */
  readonly onNotification = this.notifications.event;

  constructor(private readonly link: DaemonLink) {
    this.owned.push(
      link.onDidConnect((c) => void this.follow(c)),
      link.onDidDisconnect((info) => {
        this.offPushes?.();
        this.offPushes = null;
        this.list = [];
        this.routeList = [];
        this.setStatus({ kind: 'offline', reason: info.message });
      }),
    );
  }

  get sessions(): readonly SessionInfo[] {
    return this.list;
  }

  get routes(): readonly RouteInfo[] {
    return this.routeList;
  }

  get status(): ModelStatus {
    return this.state;
  }

  /** The live sessions (not exited). */
  live(): SessionInfo[] {
    return this.list.filter((s) => s.state !== 'exited');
  }

  /** The routes a session takes part in, as a source or as the target. */
  routesOf(sessionId: string): RouteInfo[] {
    return this.routeList.filter(
      (r) => r.to.session === sessionId || r.from.some((f) => f.session === sessionId),
    );
  }

  /**
   * Connects (starting the daemon when `autostart` and the settings allow) and reads the lists;
   * a failure leaves the model offline, saying why.
   */
  async connect(autostart: boolean): Promise<void> {
    if (!this.link.isConnected) this.setStatus({ kind: 'connecting' });
    try {
      // A new connection is followed through onDidConnect; an open one is read again.
      const c = await this.link.client({ autostart });
      if (this.offPushes) this.read(c);
    } catch (err) {
      this.setStatus({ kind: 'offline', reason: messageOf(err) });
    }
  }

  private async follow(c: ClippyClient): Promise<void> {
    this.offPushes?.();
    this.offPushes = c.onAny((p) => {
      if (p.type === 'notification') this.notifications.fire(p as Push<'notification'>);
      if (!EVENTS.has(p.type)) return;
      this.events.fire(p as SessionEvent);
      this.read(c);
    });
    try {
      await c.request('subscribe', {}, { timeoutMs: REQUEST_TIMEOUT_MS });
      this.read(c);
    } catch (err) {
      if (c.isOpen) this.setStatus({ kind: 'offline', reason: messageOf(err) });
    }
  }

  /** Reads both lists; a burst of events while a read runs costs one more read, not one each. */
  private read(c: ClippyClient): void {
    if (this.reading) {
      this.readAgain = true;
      return;
    }
    this.reading = true;
    void (async () => {
      try {
        const [s, r] = await Promise.all([
          c.request('list_sessions', {}, { timeoutMs: REQUEST_TIMEOUT_MS }),
          c.request('list_routes', {}, { timeoutMs: REQUEST_TIMEOUT_MS }),
        ]);
        if (!c.isOpen) return;
        this.list = s.sessions;
        this.routeList = r.routes;
        this.state = { kind: 'connected' };
        this.changed.fire();
      } catch (err) {
        // A lost connection is reported by the link; anything else leaves the lists as they were.
        if (c.isOpen) this.setStatus({ kind: 'offline', reason: messageOf(err) });
      } finally {
        this.reading = false;
        if (this.readAgain && c.isOpen) {
          this.readAgain = false;
          this.read(c);
        }
      }
    })();
  }

  private setStatus(s: ModelStatus): void {
    this.state = s;
    this.changed.fire();
  }

  dispose(): void {
    this.offPushes?.();
    for (const d of this.owned.splice(0)) d.dispose();
    this.changed.dispose();
    this.events.dispose();
    this.notifications.dispose();
  }
}

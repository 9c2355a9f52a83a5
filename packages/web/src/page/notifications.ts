import type { Rpc } from './rpc.js';

/** The tone played with a notification when `notify.sound` is on: short, and not shrill. */
const SOUND_HZ = 660;
const SOUND_MS = 180;

/** A `notification` push (docs/notify.md): the daemon decided this page shows it. */
interface NotificationPush {
  session: string;
  name: string;
  event: 'turn' | 'blocked';
  title: string;
  body: string;
  turn_id?: string;
  sound: boolean;
  /** With `blocked`: the question's choices (the service worker offers them as actions). */
  choices?: { label: string; keys: string[] }[];
}

/** A choice picked on a notification: answered once the same question is seen to wait. */
export interface Pick {
  name: string;
  index: number;
  label: string;
}

/** Where the page's service worker is served (its scope is the whole page). */
const SERVICE_WORKER_URL = '/sw.js';
/**
 * How long the page waits for its service worker to become active: it installs in
 * milliseconds; one that never does (a browser policy) must not keep the page from saying
 * what it shows.
 */
const SERVICE_WORKER_READY_MS = 5_000;

/** The session the page shows (its address `#s=NAME`), or null on the grid. */
function viewing(): string | null {
  const ref = /^#s=(.*)$/u.exec(location.hash)?.[1];
  if (ref === undefined) return null;
  try {
    return decodeURIComponent(ref);
  } catch {
    return ref;
  }
}

function permission(): NotificationPermission | 'unsupported' {
  return typeof Notification === 'undefined' ? 'unsupported' : Notification.permission;
}

function beep(): void {
  try {
    const audio = new AudioContext();
    const osc = audio.createOscillator();
    const gain = audio.createGain();
    osc.frequency.value = SOUND_HZ;
    gain.gain.value = 0.1;
    osc.connect(gain).connect(audio.destination);
    osc.start();
    osc.stop(audio.currentTime + SOUND_MS / 1000);
    osc.onended = () => void audio.close();
  } catch {
    // No audio here (a browser policy before any click): the notification still shows.
  }
}

/**
 * The page's part of notifications: it tells the daemon what it shows (which session, whether
 * the tab is visible, whether it can notify), so a session in front of the user is not
 * notified and its turns are read; and it shows the `notification`s the daemon sends it (one
 * page per event) through its service worker (`showNotification`: the only way on Android, and
 * the one whose click reaches the page, or opens it, when the tab is in the background or
 * closed), else with the Notification API. A click opens the session; a question's choices are
 * actions, where the platform shows them.
 */
export class PageNotifications {
  private readonly button: HTMLButtonElement | null = null;
  private readonly offs: (() => void)[] = [];
  /** The service worker's registration, once it is active (null: none here). */
  private worker: ServiceWorkerRegistration | null = null;
  /** The Notification constructor refused (as on Android): this page cannot notify without the worker. */
  private constructorBroken = false;

  constructor(
    private readonly rpc: Rpc,
    header: HTMLElement | null,
    /** Opens a session, and answers its question with a choice picked on a notification. */
    private readonly open: (name: string, pick: Pick | null) => void,
  ) {
    this.offs.push(rpc.on('notification', (p) => this.show(p as unknown as NotificationPush)));
    const report = () => void this.report();
    window.addEventListener('hashchange', report);
    document.addEventListener('visibilitychange', report);
    this.offs.push(() => window.removeEventListener('hashchange', report));
    this.offs.push(() => document.removeEventListener('visibilitychange', report));
    const fromWorker = (e: MessageEvent) => {
      const m = e.data as { type?: string; name?: string; pick?: Omit<Pick, 'name'> };
      if (m?.type !== 'clippy-open' || typeof m.name !== 'string') return;
      this.open(m.name, m.pick ? { name: m.name, ...m.pick } : null);
    };
    navigator.serviceWorker?.addEventListener('message', fromWorker);
    this.offs.push(() => navigator.serviceWorker?.removeEventListener('message', fromWorker));
    // Asking needs a click: a button while the browser has not been asked.
    if (header && permission() === 'default') {
      const button = document.createElement('button');
      button.type = 'button';
      button.className = 'notify-enable';
      button.textContent = 'Enable notifications';
      button.addEventListener('click', () => {
        void Notification.requestPermission().then(() => {
          button.remove();
          report();
        });
      });
      header.append(button);
      this.button = button;
    }
  }

  /**
   * Registers the service worker (what makes the page installable, and shows its
   * notifications); resolves once it is active, or at once where there is none.
   */
  async start(): Promise<void> {
    const container = navigator.serviceWorker;
    if (!container) return;
    try {
      await container.register(SERVICE_WORKER_URL, { scope: '/' });
      this.worker = await Promise.race([
        container.ready,
        new Promise<null>((resolve) => setTimeout(() => resolve(null), SERVICE_WORKER_READY_MS)),
      ]);
    } catch {
      // No worker here (a browser setting): the Notification API is all there is.
      this.worker = null;
    }
  }

  /**
   * Whether this page can show a notification now: the browser granted it, and the service
   * worker is there to show it — or, without one, the Notification API has not refused. A page
   * that cannot must not say it can: the daemon would not show the desktop's popup instead.
   */
  canNotify(): boolean {
    if (permission() !== 'granted') return false;
    return this.worker !== null || !this.constructorBroken;
  }

  /** Tells the daemon what this page shows now. */
  async report(): Promise<void> {
    const fields = {
      kind: 'page',
      visible: document.visibilityState === 'visible',
      can_notify: this.canNotify(),
    };
    try {
      await this.rpc.request('notify_client', { ...fields, viewing: viewing() });
    } catch {
      // The session named in the address is gone: the page says so itself; report the grid.
      await this.rpc.request('notify_client', { ...fields, viewing: null }).catch(() => {});
    }
  }

  private show(p: NotificationPush): void {
    if (p.sound) beep();
    if (permission() !== 'granted') return;
    // The tag makes a repeat of one event replace its notification rather than add one.
    const tag = `clippy:${p.session}:${p.event}:${p.turn_id ?? ''}`;
    if (this.worker) {
      const data = {
        session: p.session,
        name: p.name,
        ...(p.event === 'blocked' ? { question: p.body, choices: p.choices ?? [] } : {}),
      };
      const options: NotificationOptions & { actions?: { action: string; title: string }[] } = {
        body: p.body,
        tag,
        data,
        icon: '/icon-192.png',
      };
      const max = (Notification as unknown as { maxActions?: number }).maxActions ?? 0;
      if (p.choices?.length && max > 0)
        options.actions = p.choices
          .slice(0, max)
          .map((c, i) => ({ action: `choice-${i}`, title: c.label }));
      this.worker.showNotification(p.title, options).catch(() => {});
      return;
    }
    try {
      const note = new Notification(p.title, { body: p.body, tag });
      note.onclick = () => {
        window.focus();
        this.open(p.name, null);
        note.close();
      };
    } catch {
      // Refused (Android's Chrome without the worker): say so, and the desktop shows them.
      this.constructorBroken = true;
      void this.report();
    }
  }

  dispose(): void {
    for (const off of this.offs.splice(0)) off();
    this.button?.remove();
  }
}

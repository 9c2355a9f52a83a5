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
}

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
 * the tab is visible, whether the browser lets it notify), so a session in front of the user
 * is not notified and its turns are read; and it shows the `notification`s the daemon sends it
 * (one page per event) with the Notification API, a click opening the session.
 */
export class PageNotifications {
  private readonly button: HTMLButtonElement | null = null;
  private readonly offs: (() => void)[] = [];

  constructor(
    private readonly rpc: Rpc,
    header: HTMLElement | null,
  ) {
    this.offs.push(rpc.on('notification', (p) => this.show(p as unknown as NotificationPush)));
    const report = () => void this.report();
    window.addEventListener('hashchange', report);
    document.addEventListener('visibilitychange', report);
    this.offs.push(() => window.removeEventListener('hashchange', report));
    this.offs.push(() => document.removeEventListener('visibilitychange', report));
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

  /** Tells the daemon what this page shows now. */
  async report(): Promise<void> {
    try {
      await this.rpc.request('notify_client', {
        kind: 'page',
        viewing: viewing(),
        visible: document.visibilityState === 'visible',
        can_notify: permission() === 'granted',
      });
    } catch {
      // The session named in the address is gone: the page says so itself; report the grid.
      await this.rpc
        .request('notify_client', {
          kind: 'page',
          viewing: null,
          visible: document.visibilityState === 'visible',
          can_notify: permission() === 'granted',
        })
        .catch(() => {});
    }
  }

  private show(p: NotificationPush): void {
    if (p.sound) beep();
    if (permission() !== 'granted') return;
    // The tag makes a repeat of one event replace its notification rather than add one.
    const note = new Notification(p.title, {
      body: p.body,
      tag: `clippy:${p.session}:${p.event}:${p.turn_id ?? ''}`,
    });
    note.onclick = () => {
      window.focus();
      location.hash = `s=${encodeURIComponent(p.name)}`;
      note.close();
    };
  }

  dispose(): void {
    for (const off of this.offs.splice(0)) off();
    this.button?.remove();
  }
}

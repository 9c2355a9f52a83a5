// The web view's service worker: what makes the page installable ("Add to Home Screen") and
// shows its notifications where only a service worker may (Android's Chrome refuses
// `new Notification()`). It caches nothing and answers no fetch: the daemon is the one source
// of what the page shows, and a page that cannot reach it says so.
//
// Its types are declared here: the page's TypeScript lib is the DOM's, not the worker's.

/** What the page puts in a notification's `data` (notifications.ts). */
interface NoteData {
  session: string;
  name: string;
  question?: string;
  choices?: { label: string; keys: string[] }[];
}

interface SwClient {
  url: string;
  focus(): Promise<SwClient>;
  postMessage(message: unknown): void;
}

interface SwNotificationEvent extends Event {
  action: string;
  notification: { data: unknown; close(): void };
  waitUntil(p: Promise<unknown>): void;
}

interface SwScope {
  skipWaiting(): Promise<void>;
  clients: {
    claim(): Promise<void>;
    matchAll(o: { type: 'window'; includeUncontrolled: boolean }): Promise<SwClient[]>;
    openWindow(url: string): Promise<SwClient | null>;
  };
  registration: { scope: string };
  addEventListener(type: string, listener: (e: never) => void): void;
}

const sw = self as unknown as SwScope;

/** An action's name for a choice: `choice-N`, N its index in the question's choices. */
const CHOICE_PREFIX = 'choice-';

sw.addEventListener('install', () => void sw.skipWaiting());
sw.addEventListener('activate', (e: { waitUntil(p: Promise<unknown>): void }) =>
  e.waitUntil(sw.clients.claim()),
);

/**
 * A click opens the session: in a window of the page that is open (focused, told which), else
 * in a new one. A click on a choice (a question's action) answers with it there, once the page
 * has checked that the same question still waits.
 */
sw.addEventListener('notificationclick', (e: SwNotificationEvent) => {
  e.notification.close();
  const data = e.notification.data as NoteData | null;
  if (!data) return;
  const index = e.action.startsWith(CHOICE_PREFIX)
    ? Number(e.action.slice(CHOICE_PREFIX.length))
    : null;
  const choice = index === null ? undefined : data.choices?.[index];
  const open = {
    type: 'clippy-open',
    name: data.name,
    ...(choice ? { pick: { index, label: choice.label, question: data.question ?? '' } } : {}),
  };
  e.waitUntil(
    (async () => {
      const windows = await sw.clients.matchAll({ type: 'window', includeUncontrolled: true });
      const here = windows.find((w) => w.url.startsWith(sw.registration.scope));
      if (here) {
        // Told first: a browser that will not focus it (no user gesture it counts) still opens
        // the session there.
        here.postMessage(open);
        await here.focus().catch(() => undefined);
        return;
      }
      const params = new URLSearchParams({ s: data.name });
      if (open.pick) {
        params.set('pick', String(open.pick.index));
        params.set('label', open.pick.label);
      }
      await sw.clients.openWindow(`/#${params.toString().replace(/\+/g, '%20')}`);
    })(),
  );
});

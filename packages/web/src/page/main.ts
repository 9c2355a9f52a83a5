import '@xterm/xterm/css/xterm.css';
import { BlockedAlert } from './blocked-alert.js';
import { el } from './format.js';
import { Grid } from './grid.js';
import { LinkBanner } from './link-banner.js';
import { PageNotifications, type Pick } from './notifications.js';
import { Rpc } from './rpc.js';
import { SessionView } from './session-view.js';
import { SignInError, connectFailure, keepOnDevice, keptOnDevice, signIn } from './sign-in.js';
import { StatusLine } from './status-line.js';
import { Store, sessionRef, type SessionRow } from './store.js';
import { HostLinks } from './host-links.js';

/** At or below this width the page is laid out for a phone (one column; style.css agrees). */
const PHONE_QUERY = '(max-width: 480px)';

/** Ages on the cards are refreshed this often (they are shown to the second at best). */
const AGE_TICK_MS = 1000;

/** Figures the load benchmark reads (window.__clippy): renders and pushes handled. */
interface PageStats {
  renders: number;
  pushes: number;
  /** Times the page connected again by itself (after a daemon or web view restart). */
  reconnections: number;
}

declare global {
  interface Window {
    __clippy?: { stats: () => PageStats };
  }
}

function splitCommand(line: string): string[] {
  // Words, with "double" or 'single' quotes grouping: enough for `claude --model x` or `bash -l`.
  const words: string[] = [];
  const re = /"([^"]*)"|'([^']*)'|(\S+)/g;
  for (let m = re.exec(line); m; m = re.exec(line)) words.push(m[1] ?? m[2] ?? m[3] ?? '');
  return words;
}

/**
 * A choice picked on a notification whose click opened this page (`#s=NAME&pick=N&label=L`):
 * taken out of the address, to be answered once the sessions are listed.
 */
function takePick(): Pick | null {
  const params = new URLSearchParams(location.hash.slice(1));
  const name = params.get('s');
  const index = Number(params.get('pick'));
  const label = params.get('label');
  if (name === null || label === null || !Number.isInteger(index)) return null;
  history.replaceState(null, '', `${location.pathname}#s=${encodeURIComponent(name)}`);
  return { name, index, label };
}

async function main(): Promise<void> {
  const banner = document.getElementById('banner')!;
  const pendingPick = takePick();
  let rpc: Rpc;
  let session: string;
  try {
    session = await signIn();
    try {
      rpc = await Rpc.connect(session);
    } catch (err) {
      throw new SignInError(connectFailure((err as Error).message));
    }
  } catch (err) {
    banner.textContent =
      err instanceof SignInError ? err.message : `Cannot sign in: ${(err as Error).message}`;
    banner.hidden = false;
    document.title = 'clippy — not signed in';
    return;
  }
  const store = new Store(rpc);
  const gridRoot = document.getElementById('grid')!;
  const viewRoot = document.getElementById('session')!;
  let view: SessionView | null = null;

  const openSession = (row: SessionRow) => {
    location.hash = `s=${encodeURIComponent(sessionRef(row))}`;
  };
  const removeSession = (row: SessionRow) => {
    if (!confirm(`Remove session ${sessionRef(row)} and its turns?`)) return;
    row.rpc.request('remove', { session: row.session }).catch((err: Error) => say(err.message));
  };
  const grid = new Grid(gridRoot, store, openSession, removeSession);
  const alert = new BlockedAlert(document.getElementById('blocked')!);
  const notice = document.getElementById('notice')!;
  const say = (text: string) => {
    notice.textContent = text;
    notice.hidden = !text;
  };

  let frame = 0;
  store.onChange(() => {
    if (frame) return;
    frame = requestAnimationFrame(() => {
      frame = 0;
      grid.render();
      alert.update(store.sessions.values());
    });
  });
  setInterval(() => grid.tick(), AGE_TICK_MS);
  window.__clippy = {
    stats: () => ({
      renders: grid.renders,
      pushes: store.pushes,
      reconnections: rpc.reconnections,
    }),
  };

  const route = async () => {
    const ref = /^#s=(.*)$/.exec(location.hash)?.[1];
    view?.dispose();
    view = null;
    let name: string | undefined;
    try {
      name = ref === undefined ? undefined : decodeURIComponent(ref);
    } catch {
      name = ref;
    }
    const row = name ? store.find(name) : undefined;
    document.body.classList.toggle('in-session', Boolean(row));
    grid.setVisible(!row);
    // An address naming no session (a stale bookmark, a typo): say so over the grid.
    say(
      name && !row
        ? `No session named “${name.slice(0, 100)}”: it may have ended and been removed. All sessions are shown below.`
        : '',
    );
    if (!row) return;
    const opened = new SessionView(row.rpc, store, row, viewRoot, () => {
      location.hash = '';
    });
    view = opened;
    try {
      await opened.show();
    } catch (err) {
      // A view left before its attach finished has nothing to say.
      if (view === opened)
        viewRoot.append(el('p', 'error', `Could not attach: ${(err as Error).message}`));
    }
  };
  window.addEventListener('hashchange', () => void route());

  // Lost and found again: the daemon may have restarted, so everything is listed afresh and the
  // open session view attaches again (its terminal repaints from the replay), without a reload.
  const link = new LinkBanner(banner, rpc);
  /** Made once the sessions are listed; told again after a reconnect (a new connection). */
  let notifications: PageNotifications | null = null;
  rpc.onLink((event) => {
    if (!event.up) {
      link.down(event.why, event.retryInMs, event.signedOut);
      return;
    }
    void store
      .sync()
      .then(async () => {
        link.up();
        await route();
        await notifications?.report();
      })
      .catch((err: Error) => link.down(err.message, 0));
  });

  // On a phone the form folds under its summary, so it never takes the header.
  const details = document.getElementById('new-details') as HTMLDetailsElement;
  const phone = () => matchMedia(PHONE_QUERY).matches;
  details.open = !phone();
  const form = document.getElementById('new-session') as HTMLFormElement;
  const formStatus = new StatusLine();
  form.append(formStatus.root);
  form.addEventListener('submit', (e) => {
    e.preventDefault();
    const data = new FormData(form);
    const [command, ...args] = splitCommand(String(data.get('command') ?? ''));
    // Optional fields left empty take the daemon's defaults (a derived name, the `generic`
    // preset, the daemon's directory); an unknown preset is refused by the daemon, naming the
    // known ones.
    const optional: Record<string, string> = {};
    for (const field of ['name', 'preset', 'cwd']) {
      const value = String(data.get(field) ?? '').trim();
      if (value) optional[field] = value;
    }
    if (!command) return formStatus.say('type a command to start, e.g. bash', true);
    // At once, in place of the last answer: an earlier "failed: …" left up while this one is
    // on its way read as this attempt's.
    formStatus.say(`starting ${command}…`);
    rpc
      .request<{ name: string }>('spawn', { command, args, ...optional })
      .then((r) => {
        formStatus.say(`started ${r.name}`);
        form.reset();
        // On a phone the open form covers the grid: folded again, the new card shows.
        if (phone()) details.open = false;
      })
      .catch((err: Error) => formStatus.say(`failed: ${err.message}`, true));
  });

  /** Answers a question with a choice picked on its notification, if that question still waits. */
  const answer = (pick: Pick) => {
    const row = store.find(pick.name);
    const option = row?.state === 'blocked' ? row.menu?.options[pick.index] : undefined;
    if (!row || option?.label !== pick.label) {
      say(`Not answered: ${pick.name} no longer asks the question of that notification.`);
      return;
    }
    row.rpc
      .request('send', { session: row.session, keys: option.keys })
      .then(() => say(`Answered ${pick.name}: ${pick.label}`))
      .catch((err: Error) => say(`Not answered: ${err.message}`));
  };
  const openFromNotification = (name: string, pick: Pick | null) => {
    const hash = `#s=${encodeURIComponent(name)}`;
    if (location.hash !== hash) location.hash = hash;
    if (!pick) return;
    // The daemon learns first that the session is in front of the user: the answer's turn is
    // then read here, not notified.
    void (notifications?.report() ?? Promise.resolve()).then(() => answer(pick));
  };

  const header = document.querySelector<HTMLElement>('header.top');
  stayButton(header);
  await store.load();
  // The other machines of config.json's `hosts`: their sessions join the grid as they come.
  const hosts = new HostLinks(rpc, session, store, document.getElementById('hosts')!, () => {
    // An address naming a session of a host that was not listed yet: shown now.
    if (!view && /^#s=./u.test(location.hash)) void route();
  });
  void hosts.start();
  document.body.dataset.ready = 'true';
  notifications = new PageNotifications(rpc, header, openFromNotification);
  await route();
  await notifications.start();
  await notifications.report();
  if (pendingPick) answer(pendingPick);
}

/**
 * "Stay signed in on this device": keeps the tab's session in the origin's localStorage, so the
 * page installed on a home screen, a bookmark and a notification's click open signed in; asked
 * for, since any page later served on this port of this machine could read it (docs/web.md).
 */
function stayButton(header: HTMLElement | null): void {
  if (!header) return;
  const button = document.createElement('button');
  button.type = 'button';
  button.className = 'stay-signed-in';
  const show = () => {
    const kept = keptOnDevice() !== null;
    button.textContent = kept ? 'Signed in on this device ✓' : 'Stay signed in';
    button.title = kept
      ? 'This device keeps the sign-in (a home-screen app and notifications open signed in). Click to forget it.'
      : 'Keep the sign-in on this device, so a home-screen app, a bookmark and a notification’s click open signed in';
    button.setAttribute('aria-pressed', String(kept));
  };
  button.addEventListener('click', () => {
    keepOnDevice(keptOnDevice() === null);
    show();
  });
  show();
  header.append(button);
}

void main();

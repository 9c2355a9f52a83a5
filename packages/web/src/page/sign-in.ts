/**
 * How the page signs in to the web view. `clippy web` prints `http://127.0.0.1:PORT/#token=…`:
 * the token is in the fragment, which the browser sends to no server and puts in no Referer.
 * The page takes it out of the address bar at once, shows it once to the endpoint (POST
 * /session) and gets a session for this tab, kept in sessionStorage: only this tab, on this
 * origin (scheme, host and port), can read it; it lets a reload in and dies with the tab. No
 * cookie is involved: browsers send a host's cookies to every port of it, i.e. to pages other
 * local users serve.
 */

/** Where this tab keeps its session with the endpoint. */
const SESSION_KEY = 'clippy.web.session';
/** The fragment parameter that carries the token in the URL `clippy web` prints. */
const TOKEN_PARAM = 'token';
/** The fragment parameter that carries a one-time code (`clippy web --open`). */
const CODE_PARAM = 'code';

/** Signing in failed, or there is nothing to sign in with; `message` says what to do. */
export class SignInError extends Error {}

const WHAT_TO_DO =
  'Run `clippy web` in a terminal and open the URL it prints (it ends in #token=…).';

/** Takes the token or code out of the address, keeping anything else of the fragment (`s=NAME`). */
function takeFromAddress(): { token: string } | { code: string } | null {
  const params = new URLSearchParams(location.hash.slice(1));
  const token = params.get(TOKEN_PARAM);
  const code = params.get(CODE_PARAM);
  if (token === null && code === null) return null;
  params.delete(TOKEN_PARAM);
  params.delete(CODE_PARAM);
  const rest = params.toString();
  history.replaceState(null, '', `${location.pathname}${location.search}${rest ? `#${rest}` : ''}`);
  return token !== null ? { token } : { code: code! };
}

/**
 * The session this device keeps for the page, when the user asked for it ("Stay signed in"):
 * in localStorage, which only this origin (scheme, host and port) reads, so a page installed
 * on the home screen, a bookmark or a notification's click opens signed in.
 */
export function keptOnDevice(): string | null {
  try {
    return localStorage.getItem(SESSION_KEY);
  } catch {
    return null;
  }
}

/** Keeps this tab's session on the device (true), or forgets it there (false). */
export function keepOnDevice(keep: boolean): void {
  const session = sessionStorage.getItem(SESSION_KEY);
  if (keep && session) localStorage.setItem(SESSION_KEY, session);
  else localStorage.removeItem(SESSION_KEY);
}

/** This tab's session: a new one for a token or code in the address, else the one kept. */
export async function signIn(): Promise<string> {
  const given = takeFromAddress();
  if (given === null) {
    const kept = sessionStorage.getItem(SESSION_KEY) ?? keptOnDevice();
    if (kept) {
      sessionStorage.setItem(SESSION_KEY, kept);
      return kept;
    }
    throw new SignInError(`This tab is not signed in to the web view. ${WHAT_TO_DO}`);
  }
  // A one-time code (`clippy web --open`) is good once: the token never enters the history.
  const secret = 'token' in given ? given.token : given.code;
  let response: Response;
  try {
    response = await fetch('token' in given ? '/session' : '/session/code', {
      method: 'POST',
      headers: { authorization: `Bearer ${secret}` },
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch (err) {
    throw new SignInError(`Cannot reach clippyd (${(err as Error).message}). ${WHAT_TO_DO}`);
  }
  if (!response.ok) {
    const why = (await response.text()).split('\n')[0]!.replace(/^clippy web view: /, '');
    const what = 'token' in given ? 'this address’s token' : 'this address’s one-time code';
    throw new SignInError(`The web view did not take ${what}: ${why} ${WHAT_TO_DO}`);
  }
  const { session } = (await response.json()) as { session: string };
  sessionStorage.setItem(SESSION_KEY, session);
  // Signed in anew: a session kept on the device is replaced by this one.
  if (keptOnDevice() !== null) keepOnDevice(true);
  return session;
}

/**
 * Whether the endpoint still knows this session (false: the token was rotated since), or null
 * when the endpoint cannot be reached (stopped, restarting).
 */
export async function sessionKnown(session: string): Promise<boolean | null> {
  try {
    const r = await fetch('/session/check', {
      method: 'POST',
      headers: { authorization: `Bearer ${session}` },
      cache: 'no-store',
      credentials: 'omit',
    });
    if (r.status === 204) return true;
    if (r.status === 403) {
      if (keptOnDevice() === session) keepOnDevice(false);
      return false;
    }
    return null;
  } catch {
    return null;
  }
}

/** What to say when the WebSocket cannot be opened with the tab's session. */
export function connectFailure(message: string): string {
  return (
    `Cannot reach clippyd: ${message}. If \`clippy web\` was stopped, moved or restarted since ` +
    `this tab signed in, its session ended with it. ${WHAT_TO_DO}`
  );
}

/** What to say when the endpoint no longer knows the tab's session. */
export const SIGNED_OUT =
  'This tab was signed out: the web view’s token was changed (`clippy web --rotate`), so the old URL no longer signs in. Open the new URL that `clippy web` prints.';

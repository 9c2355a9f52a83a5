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

/** Signing in failed, or there is nothing to sign in with; `message` says what to do. */
export class SignInError extends Error {}

const WHAT_TO_DO =
  'Run `clippy web` in a terminal and open the URL it prints (it ends in #token=…).';

/** Takes the token out of the address, keeping anything else of the fragment (`s=NAME`). */
function takeTokenFromAddress(): string | null {
  const params = new URLSearchParams(location.hash.slice(1));
  const token = params.get(TOKEN_PARAM);
  if (token === null) return null;
  params.delete(TOKEN_PARAM);
  const rest = params.toString();
  history.replaceState(null, '', `${location.pathname}${location.search}${rest ? `#${rest}` : ''}`);
  return token;
}

/** This tab's session: a new one for a token in the address, else the one it kept. */
export async function signIn(): Promise<string> {
  const token = takeTokenFromAddress();
  if (token === null) {
    const kept = sessionStorage.getItem(SESSION_KEY);
    if (kept) return kept;
    throw new SignInError(`This tab is not signed in to the web view. ${WHAT_TO_DO}`);
  }
  let response: Response;
  try {
    response = await fetch('/session', {
      method: 'POST',
      headers: { authorization: `Bearer ${token}` },
      cache: 'no-store',
      credentials: 'omit',
    });
  } catch (err) {
    throw new SignInError(`Cannot reach clippyd (${(err as Error).message}). ${WHAT_TO_DO}`);
  }
  if (!response.ok) {
    const why = (await response.text()).split('\n')[0]!.replace(/^clippy web view: /, '');
    throw new SignInError(`The web view did not take this address’s token: ${why} ${WHAT_TO_DO}`);
  }
  const { session } = (await response.json()) as { session: string };
  sessionStorage.setItem(SESSION_KEY, session);
  return session;
}

/** What to say when the WebSocket cannot be opened with the tab's session. */
export function connectFailure(message: string): string {
  return (
    `Cannot reach clippyd: ${message}. If \`clippy web\` was stopped, moved or restarted since ` +
    `this tab signed in, its session ended with it. ${WHAT_TO_DO}`
  );
}

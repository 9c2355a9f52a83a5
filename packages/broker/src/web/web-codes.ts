import { randomBytes } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { bearerToken, refusalText, sameSecret } from './web-guard.js';
import type { WebSessions } from './web-sessions.js';

/** Random bytes in a one-time code: used once, within minutes, and unguessable in that time. */
const CODE_BYTES = 16;
/**
 * How long a code from `clippy web --open` waits for its browser: one started cold (or asking
 * which profile to use) takes seconds; a code never used is worth nothing after this.
 */
export const WEB_CODE_TTL_MS = 120_000;
/** Codes waiting at once: each `--open` makes one; more than this and the oldest go. */
const CODES_LIMIT = 16;

/** Where the page exchanges a one-time code for its tab's session (POST, `Authorization: Bearer CODE`). */
export const WEB_CODE_PATH = '/session/code';
/** Where the page asks whether its tab's session is still good (POST, `Authorization: Bearer SESSION`). */
export const WEB_CHECK_PATH = '/session/check';

/**
 * The one-time codes of `clippy web --open`: the browser is handed `#code=…` instead of the
 * token, the page exchanges it once for a tab session, and a second use (the history's copy of
 * the address, a reload) is refused. The token thus never enters the browser's history, where
 * autocomplete and sync would carry it. Kept in memory: a restart of the daemon ends them.
 */
export class WebCodes {
  private readonly codes = new Map<string, number>();

  constructor(private readonly now: () => number = Date.now) {}

  issue(): string {
    this.expire();
    while (this.codes.size >= CODES_LIMIT) this.codes.delete(this.codes.keys().next().value!);
    const code = randomBytes(CODE_BYTES).toString('hex');
    this.codes.set(code, this.now() + WEB_CODE_TTL_MS);
    return code;
  }

  /** Whether `given` is a code waiting (it is spent either way it matched). */
  redeem(given: string): boolean {
    this.expire();
    for (const code of this.codes.keys()) {
      if (sameSecret(given, code)) {
        this.codes.delete(code);
        return true;
      }
    }
    return false;
  }

  /** Every code is let go (a new token: `clippy web --rotate`). */
  clear(): void {
    this.codes.clear();
  }

  private expire(): void {
    const now = this.now();
    for (const [code, until] of this.codes) if (until <= now) this.codes.delete(code);
  }
}

function answer(res: ServerResponse, status: number, body: string, type: string): void {
  res.writeHead(status, {
    'content-type': type,
    'content-length': Buffer.byteLength(body),
    'cache-control': 'no-store',
    'x-content-type-options': 'nosniff',
  });
  res.end(body);
}

/**
 * The code exchange and the session check (POST only, the request already found to come from
 * the endpoint's own page): a code good once gives a tab session; a session is said good (204)
 * or not (403), so a page let go by `clippy web --rotate` says so instead of reconnecting for
 * ever.
 */
export function serveSessionExtras(
  req: IncomingMessage,
  res: ServerResponse,
  path: string,
  port: number,
  codes: WebCodes,
  sessions: WebSessions,
  onRefused: (reason: string) => void,
): void {
  req.resume();
  if (req.method !== 'POST') {
    res.setHeader('allow', 'POST');
    answer(res, 405, `${path} takes POST only\n`, 'text/plain; charset=utf-8');
    return;
  }
  const given = bearerToken(req);
  if (path === WEB_CHECK_PATH) {
    const good = given !== null && sessions.valid(given);
    if (good) answer(res, 204, '', 'text/plain; charset=utf-8');
    else answer(res, 403, 'this tab’s session is not known to the web view\n', 'text/plain');
    return;
  }
  const why =
    given === null
      ? 'a one-time code is required (Authorization: Bearer …)'
      : codes.redeem(given)
        ? null
        : 'this one-time code was used already or has expired';
  if (why) {
    onRefused(why);
    answer(res, 403, refusalText(why, port), 'text/plain; charset=utf-8');
    return;
  }
  answer(res, 200, JSON.stringify({ session: sessions.issue() }), 'application/json');
}

import type { WebhookFormat } from '@clippy/protocol';

/**
 * The longest answer a `json` webhook carries, in characters: whole answers as people read them
 * (a long one is some 10–20 k), well under what any receiver takes in one request.
 */
export const WEBHOOK_JSON_TEXT_CHARS = 32_000;
/**
 * The longest `ntfy` body, in UTF-8 bytes: ntfy.sh turns a larger message into an attachment,
 * which a server without attachments refuses.
 */
export const WEBHOOK_NTFY_BODY_BYTES = 4_000;
/** The longest `slack` text, in characters: Discord's webhooks take 2,000, Slack's 40,000. */
export const WEBHOOK_SLACK_TEXT_CHARS = 1_900;

/** One event as a webhook tells it (docs/notify.md, "Webhooks"). */
export interface WebhookEvent {
  event: 'turn' | 'blocked' | 'test';
  /** The session's ID ("" for a test). */
  session: string;
  name: string;
  /** The machine the daemon runs on. */
  host: string;
  /** `turn`: the answer, exact; `blocked`: the question (or what the session waits for). */
  text: string;
  /** `blocked`: the question read on the screen (null: none read, e.g. a program's `read`). */
  question?: string | null;
  /** `blocked`: the labels of its choices, in order. */
  choices?: string[];
  /** `turn`: the finished turn's ID (for `clippy show`). */
  turnId?: string;
  /** The web view's link to the session, while the web view runs. */
  url: string | null;
}

/** The request a webhook is sent: its headers and body. */
export interface WebhookRequest {
  headers: Record<string, string>;
  body: string;
}

/** What is appended to a cut text, saying how much is missing. */
export function cutMarker(missing: number, unit: 'characters' | 'bytes'): string {
  return `\n… [cut: ${missing} more ${unit}]`;
}

/** `text` cut to at most `max` characters, with the marker inside that length. */
export function cutChars(text: string, max: number): string {
  if (text.length <= max) return text;
  // The marker's own length depends on the count: two passes settle it.
  let keep = max - cutMarker(text.length, 'characters').length;
  keep = Math.max(0, keep);
  // Never half a surrogate pair.
  if (keep > 0 && isHighSurrogate(text.charCodeAt(keep - 1))) keep--;
  return text.slice(0, keep) + cutMarker(text.length - keep, 'characters');
}

/** `text` cut to at most `max` UTF-8 bytes, with the marker inside that length. */
export function cutBytes(text: string, max: number): string {
  const bytes = Buffer.from(text, 'utf8');
  if (bytes.length <= max) return text;
  let keep = Math.max(0, max - Buffer.byteLength(cutMarker(bytes.length, 'bytes')));
  // Back to the start of a character (UTF-8 continuation bytes are 10xxxxxx).
  while (keep > 0 && (bytes[keep]! & 0xc0) === 0x80) keep--;
  return bytes.subarray(0, keep).toString('utf8') + cutMarker(bytes.length - keep, 'bytes');
}

function isHighSurrogate(code: number): boolean {
  return code >= 0xd800 && code <= 0xdbff;
}

/** The notification's title: which session, what happened. */
export function webhookTitle(e: WebhookEvent): string {
  if (e.event === 'test') return 'clippy: test notification';
  return e.event === 'blocked' ? `${e.name} needs you` : `${e.name}: turn finished`;
}

/** What a person reads: the answer, or the question with its choices numbered. */
function readable(e: WebhookEvent): string {
  if (e.event !== 'blocked' || !e.choices?.length) return e.text;
  return `${e.text}\n\n${e.choices.map((c, i) => `${i + 1}. ${c}`).join('\n')}`;
}

/**
 * A header value as HTTP carries it: ASCII as it is, anything else as an RFC 2047 encoded word
 * (what ntfy decodes), since a header holds bytes, not text.
 */
export function headerValue(text: string): string {
  const flat = text.replace(/[\r\n]+/gu, ' ');
  if (/^[\x20-\x7e]*$/u.test(flat)) return flat;
  return `=?UTF-8?B?${Buffer.from(flat, 'utf8').toString('base64')}?=`;
}

/** Slack's three control characters, escaped as its message format asks. */
function slackEscape(text: string): string {
  return text.replace(/&/gu, '&amp;').replace(/</gu, '&lt;').replace(/>/gu, '&gt;');
}

/** The POST a webhook of `format` gets for one event. */
export function webhookRequest(format: WebhookFormat, e: WebhookEvent): WebhookRequest {
  if (format === 'ntfy') {
    const headers: Record<string, string> = {
      'content-type': 'text/plain; charset=utf-8',
      title: headerValue(webhookTitle(e)),
      priority: e.event === 'blocked' ? 'high' : 'default',
      tags: e.event === 'blocked' ? 'question' : 'white_check_mark',
    };
    if (e.url) headers.click = e.url;
    return { headers, body: cutBytes(readable(e), WEBHOOK_NTFY_BODY_BYTES) };
  }
  if (format === 'slack') {
    const head = `*${slackEscape(webhookTitle(e))}*`;
    const link = e.url ? `\n<${e.url}|open ${slackEscape(e.name)}>` : '';
    const room = WEBHOOK_SLACK_TEXT_CHARS - head.length - link.length - 1;
    const text = `${head}\n${cutChars(slackEscape(readable(e)), Math.max(0, room))}${link}`;
    return {
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text }),
    };
  }
  const body: Record<string, unknown> = {
    event: e.event,
    session: e.session,
    name: e.name,
    host: e.host,
    text: cutChars(e.text, WEBHOOK_JSON_TEXT_CHARS),
  };
  if (e.event === 'blocked') {
    body.question = e.question ?? null;
    body.choices = e.choices ?? [];
  }
  if (e.turnId) body.turn_id = e.turnId;
  body.url = e.url;
  return { headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) };
}

import { maskWebhookUrl, type WebhookFormat } from '@clippy/protocol';
import type { Logger } from '../log.js';
import { webhookRequest, type WebhookEvent } from './webhook-format.js';

/** One try's limit: a receiver that has not answered by then counts as failed (and is tried again). */
export const WEBHOOK_TIMEOUT_MS = 10_000;
/** Tries per event: the first and three more, so a receiver restarting or a flaky link is ridden out. */
export const WEBHOOK_ATTEMPTS = 4;
/** The wait before the first retry, multiplied by WEBHOOK_BACKOFF_FACTOR each time (1 s, 4 s, 16 s). */
export const WEBHOOK_RETRY_FIRST_MS = 1_000;
const WEBHOOK_BACKOFF_FACTOR = 4;
/** Events kept while the receiver is slow or down: beyond it the oldest waiting is dropped. */
export const WEBHOOK_QUEUE_LIMIT = 100;
/** How much of a refusal's body is kept in the error (ntfy and Slack say why in it). */
const ERROR_BODY_CHARS = 200;

/** Where an event goes: the URL (may hold a secret) and how it is written. */
export interface WebhookTarget {
  url: string;
  format: WebhookFormat;
}

interface Delivery {
  event: WebhookEvent;
  target: WebhookTarget;
  tries: number;
}

/** The outcome of one POST: the status it got, or why it failed (and whether to try again). */
type Outcome = { ok: true; status: number } | { ok: false; error: string; retry: boolean };

export interface WebhookStatus {
  last_delivery: {
    at: number;
    event: string;
    session: string;
    url: string;
    status: number;
  } | null;
  last_error: { at: number; event: string; session: string; url: string; error: string } | null;
  pending: number;
}

/**
 * The webhook sink: POSTs each event to the URL in force for its session, in the format asked
 * for (webhook-format.ts). Nothing of it runs on a session's path: `deliver` queues and returns;
 * the queue is worked off one request at a time (events arrive in order), a failure is tried
 * again with backoff (1 s, 4 s, 16 s), then dropped. The log says once that deliveries fail,
 * not at every event, and once that they work again. The URL is logged and shown as its scheme
 * and host only: the rest is commonly the secret.
 */
export class WebhookOutput {
  private readonly queue: Delivery[] = [];
  private working = false;
  private retryTimer: NodeJS.Timeout | null = null;
  private readonly inFlight = new Set<AbortController>();
  private failing = false;
  private dropped = 0;
  private disposed = false;
  private lastDelivery: WebhookStatus['last_delivery'] = null;
  private lastError: WebhookStatus['last_error'] = null;

  constructor(
    private readonly log: Logger,
    private readonly post: typeof fetch = fetch,
  ) {}

  /** Queues the event for the URL; true (it is handed on) unless the sink is gone. */
  deliver(event: WebhookEvent, target: WebhookTarget): boolean {
    if (this.disposed) return false;
    this.queue.push({ event, target, tries: 0 });
    // The one being sent (or waiting to be tried again) stays; the oldest after it goes.
    if (this.queue.length > WEBHOOK_QUEUE_LIMIT) {
      this.queue.splice(1, 1);
      if (this.dropped++ === 0)
        this.log.warn(
          { limit: WEBHOOK_QUEUE_LIMIT, url: maskWebhookUrl(target.url) },
          'webhook: too many events waiting; the oldest are dropped',
        );
    }
    void this.work();
    return true;
  }

  /** One POST, no retry, its answer awaited: `clippy notify --test`. */
  async test(event: WebhookEvent, target: WebhookTarget): Promise<string> {
    const outcome = await this.send({ event, target, tries: 0 });
    this.record({ event, target, tries: 1 }, outcome);
    return outcome.ok ? `HTTP ${outcome.status}` : outcome.error;
  }

  status(): WebhookStatus {
    return {
      last_delivery: this.lastDelivery,
      last_error: this.lastError,
      pending: this.queue.length,
    };
  }

  private async work(): Promise<void> {
    if (this.working || this.retryTimer) return;
    this.working = true;
    try {
      while (!this.disposed && this.queue.length > 0) {
        const d = this.queue[0]!;
        d.tries++;
        const outcome = await this.send(d);
        if (this.disposed) return;
        if (!outcome.ok && outcome.retry && d.tries < WEBHOOK_ATTEMPTS) {
          const wait = WEBHOOK_RETRY_FIRST_MS * WEBHOOK_BACKOFF_FACTOR ** (d.tries - 1);
          this.retryTimer = setTimeout(() => {
            this.retryTimer = null;
            void this.work();
          }, wait);
          this.retryTimer.unref();
          return;
        }
        this.queue.shift();
        this.record(d, outcome);
      }
    } finally {
      this.working = false;
    }
  }

  private record(d: Delivery, outcome: Outcome): void {
    const what = {
      at: Date.now(),
      event: d.event.event,
      session: d.event.event === 'test' ? '' : d.event.name,
      url: maskWebhookUrl(d.target.url),
    };
    if (outcome.ok) {
      this.lastDelivery = { ...what, status: outcome.status };
      if (this.failing) this.log.info({ url: what.url }, 'webhook: deliveries work again');
      this.failing = false;
      this.dropped = 0;
      return;
    }
    this.lastError = { ...what, error: outcome.error };
    if (!this.failing)
      this.log.warn(
        { url: what.url, err: outcome.error, tries: d.tries },
        'webhook: delivery failed (said once until one works again; `clippy notify` shows the last error)',
      );
    this.failing = true;
  }

  private async send(d: Delivery): Promise<Outcome> {
    const { headers, body } = webhookRequest(d.target.format, d.event);
    const abort = new AbortController();
    this.inFlight.add(abort);
    const timer = setTimeout(() => abort.abort(), WEBHOOK_TIMEOUT_MS);
    try {
      const res = await this.post(d.target.url, {
        method: 'POST',
        headers: { 'user-agent': 'clippy', ...headers },
        body,
        signal: abort.signal,
        redirect: 'follow',
      });
      const text = await res.text().catch(() => '');
      if (res.ok) return { ok: true, status: res.status };
      // A refusal of the request itself (bad URL, bad token) does not get better by waiting.
      const retry = res.status >= 500 || res.status === 408 || res.status === 429;
      const why = text.trim().slice(0, ERROR_BODY_CHARS);
      return {
        ok: false,
        error: `HTTP ${res.status}${res.statusText ? ` ${res.statusText}` : ''}${why ? `: ${why}` : ''}`,
        retry,
      };
    } catch (err) {
      const e = err as Error & { cause?: { message?: string; code?: string } };
      const why = abort.signal.aborted
        ? `no answer within ${WEBHOOK_TIMEOUT_MS / 1000} s`
        : (e.cause?.message ?? e.message);
      return { ok: false, error: why, retry: true };
    } finally {
      clearTimeout(timer);
      this.inFlight.delete(abort);
    }
  }

  dispose(): void {
    this.disposed = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    this.retryTimer = null;
    for (const a of this.inFlight) a.abort();
    this.inFlight.clear();
    this.queue.length = 0;
  }
}

import type { FromWorker, Reply, ReplyBody, ToWorker } from '../messages.js';
import { SessionModel } from './session-model.js';

/**
 * The pipeline worker's work, without the thread: the worker binds it to its port (entry.ts),
 * and tests drive it directly, so no test re-implements what the worker does. Steps arrive in
 * the order the main thread took them (output and input share one channel); the replies of one
 * turn of the event loop leave in one message.
 */
export class PipelineWorker {
  private readonly sessions = new Map<number, SessionModel>();
  private outbox: Reply[] = [];
  /** Buffers the replies in the outbox own alone: handed over, not copied (see reply). */
  private handOver: ArrayBuffer[] = [];
  private flushing: NodeJS.Immediate | null = null;

  constructor(private readonly post: (message: FromWorker, transfer: ArrayBuffer[]) => void) {}

  handle(message: ToWorker): void {
    const { steps, data } = message;
    for (const step of steps) {
      if (step.op === 'open') {
        this.sessions.get(step.id)?.dispose();
        this.sessions.set(
          step.id,
          new SessionModel(step.cols, step.rows, step.scrollback, (reply) =>
            this.reply(step.id, reply),
          ),
        );
        continue;
      }
      const model = this.sessions.get(step.id);
      if (!model) {
        // Closed meanwhile (or never opened): requests still get an answer.
        if (step.op === 'serialize')
          this.reply(step.id, { serialized: { req: step.req, replay: '' } });
        else if (step.op === 'partial')
          this.reply(step.id, { partial: { req: step.req, text: null } });
        else if (step.op === 'sync') this.reply(step.id, { synced: step.req });
        continue;
      }
      switch (step.op) {
        case 'detect':
          model.detect(step.setup);
          break;
        case 'out':
          // A view of the message's buffer, which nobody changes: kept as it is where kept.
          model.output(new Uint8Array(data[step.buf]!, step.at, step.length), step.now);
          break;
        case 'in':
          model.input(new Uint8Array(data[step.buf]!, step.at, step.length), step.now);
          break;
        case 'resize':
          model.resize(step.cols, step.rows);
          break;
        case 'serialize': {
          const { id, req } = step;
          model.serialize((replay) => this.reply(id, { serialized: { req, replay } }));
          break;
        }
        case 'partial':
          this.reply(step.id, { partial: { req: step.req, text: model.partialText() } });
          break;
        case 'drop-untaken':
          model.dropUntaken(step.now);
          break;
        case 'recorded-end':
          model.recordedEnd(step.startedAt, step.now, step.tail);
          break;
        case 'sync':
          this.reply(step.id, { synced: step.req });
          break;
        case 'held':
          model.setHeld(step.on);
          break;
        case 'close':
          this.sessions.delete(step.id);
          model.dispose();
          break;
      }
    }
  }

  /** Stops every session's model (their timers and terminals). */
  dispose(): void {
    for (const model of this.sessions.values()) model.dispose();
    this.sessions.clear();
    if (this.flushing) clearImmediate(this.flushing);
    this.flushing = null;
  }

  private reply(id: number, body: ReplyBody): void {
    this.outbox.push({ id, ...body } as Reply);
    // A turn's content (up to maxTurnBytes, 4 MiB by default) is a buffer of its own (see
    // turnContent): moved to the main thread instead of copied on both sides.
    if ('events' in body) {
      for (const ev of body.events) {
        if (ev.type === 'turn' && ownsBuffer(ev.content)) this.handOver.push(ev.content.buffer);
      }
    }
    // Everything said in this turn of the event loop goes in one message.
    this.flushing ??= setImmediate(() => {
      this.flushing = null;
      const replies = this.outbox;
      const transfer = this.handOver;
      this.outbox = [];
      this.handOver = [];
      this.post({ replies }, transfer);
    });
  }
}

/** Whether `bytes` is all of a plain ArrayBuffer (a view of part of one may share it). */
function ownsBuffer(bytes: Uint8Array): bytes is Uint8Array<ArrayBuffer> {
  return (
    bytes.buffer instanceof ArrayBuffer &&
    bytes.byteOffset === 0 &&
    bytes.byteLength === bytes.buffer.byteLength &&
    bytes.byteLength > 0
  );
}

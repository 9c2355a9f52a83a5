/**
 * The screen worker: one thread holding the headless terminals of every session, so that
 * parsing terminal output (xterm parses ~20–40 MB/s) never competes with forwarding output on
 * the broker's main thread. Messages are defined in screen-protocol.ts.
 */
import { parentPort } from 'node:worker_threads';
import headless from '@xterm/headless';
import serialize from '@xterm/addon-serialize';
import type { ScreenSnapshot } from '@clippy/turns';
import type { FromScreenWorker, ToScreenWorker } from './screen-protocol.js';

const { Terminal } = headless;
const { SerializeAddon } = serialize;
type HeadlessTerminal = InstanceType<typeof Terminal>;

/** Rendered lines of a watched screen are sent at most this often while output keeps flowing. */
const LINES_INTERVAL_MS = 15;

class Model {
  readonly term: HeadlessTerminal;
  readonly serializer: InstanceType<typeof SerializeAddon>;
  fed = 0;
  parsed = 0;
  cursorHidden = false;
  watched = false;
  progressQueued = false;
  linesSentAt = 0;
  /** Serialize requests waiting for the bytes fed before them to be parsed. */
  waiters: { req: number; target: number }[] = [];

  constructor(
    readonly id: number,
    cols: number,
    rows: number,
    readonly scrollback: number,
  ) {
    this.term = new Terminal({ cols, rows, scrollback, allowProposedApi: true });
    this.serializer = new SerializeAddon();
    this.term.loadAddon(this.serializer as unknown as Parameters<HeadlessTerminal['loadAddon']>[0]);
    // The serialize addon does not restore cursor visibility (DECTCEM): track it. Returning
    // false lets xterm's own handler run as well.
    this.term.parser.registerCsiHandler({ prefix: '?', final: 'h' }, (params) => {
      if (params.includes(25)) this.cursorHidden = false;
      return false;
    });
    this.term.parser.registerCsiHandler({ prefix: '?', final: 'l' }, (params) => {
      if (params.includes(25)) this.cursorHidden = true;
      return false;
    });
    // What a terminal answers to the program's queries (device attributes, cursor position,
    // mode reports): the session decides whether it is sent (see Session.answerQueries).
    this.term.onData((data) => post({ op: 'reply', id: this.id, data }));
  }

  write(data: Uint8Array): void {
    this.fed += data.length;
    const length = data.length;
    try {
      this.term.write(data, () => this.afterParse(length));
    } catch {
      // xterm refused the data (its own overflow guard): count it so waiters never hang.
      this.afterParse(length);
    }
  }

  /**
   * Runs in xterm's write callback: after this chunk was parsed and before the next one is, so
   * a replay taken here covers exactly the bytes [0, parsed).
   */
  private afterParse(length: number): void {
    this.parsed += length;
    while (this.waiters.length > 0 && this.waiters[0]!.target <= this.parsed) {
      const { req } = this.waiters.shift()!;
      post({ op: 'serialized', id: this.id, req, replay: this.replay() });
    }
    if (!this.progressQueued) {
      this.progressQueued = true;
      setImmediate(() => this.sendProgress());
    }
  }

  sendProgress(): void {
    this.progressQueued = false;
    if (!models.has(this.id)) return;
    const message: FromScreenWorker = {
      op: 'progress',
      id: this.id,
      parsed: this.parsed,
      bracketedPaste: this.term.modes.bracketedPasteMode,
      applicationCursor: this.term.modes.applicationCursorKeysMode,
    };
    const now = Date.now();
    if (this.watched && (this.parsed === this.fed || now - this.linesSentAt >= LINES_INTERVAL_MS)) {
      this.linesSentAt = now;
      message.lines = this.lines();
    }
    post(message);
  }

  requestReplay(req: number): void {
    if (this.parsed >= this.fed)
      post({ op: 'serialized', id: this.id, req, replay: this.replay() });
    else this.waiters.push({ req, target: this.fed });
  }

  replay(): string {
    const text = this.serializer.serialize({ scrollback: this.scrollback });
    // Always state cursor visibility: the client's terminal may have it hidden from before.
    return text + (this.cursorHidden ? '\x1b[?25l' : '\x1b[?25h');
  }

  lines(): ScreenSnapshot {
    const buffer = this.term.buffer.active;
    const lines: string[] = [];
    for (let y = 0; y < buffer.length; y++)
      lines.push(buffer.getLine(y)?.translateToString(true) ?? '');
    return { lines, viewportTop: buffer.viewportY, rows: this.term.rows, cols: this.term.cols };
  }

  dispose(): void {
    for (const w of this.waiters) post({ op: 'serialized', id: this.id, req: w.req, replay: '' });
    this.waiters = [];
    this.term.dispose();
  }
}

const models = new Map<number, Model>();

function post(message: FromScreenWorker): void {
  parentPort!.postMessage(message);
}

parentPort!.on('message', (m: ToScreenWorker) => {
  if (m.op === 'create') {
    models.set(m.id, new Model(m.id, m.cols, m.rows, m.scrollback));
    return;
  }
  const model = models.get(m.id);
  if (!model) {
    if (m.op === 'serialize') post({ op: 'serialized', id: m.id, req: m.req, replay: '' });
    return;
  }
  switch (m.op) {
    case 'write':
      model.write(m.data);
      break;
    case 'resize':
      if (m.cols !== model.term.cols || m.rows !== model.term.rows)
        model.term.resize(m.cols, m.rows);
      if (model.watched) model.sendProgress();
      break;
    case 'serialize':
      model.requestReplay(m.req);
      break;
    case 'watch':
      model.watched = m.on;
      if (m.on) model.sendProgress();
      break;
    case 'dispose':
      models.delete(m.id);
      model.dispose();
      break;
  }
});

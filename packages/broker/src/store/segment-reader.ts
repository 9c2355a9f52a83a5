import { closeSync, constants, readSync } from 'node:fs';
import { join } from 'node:path';
import { openOwn, openOwnSync } from '../own-files.js';
import type { HistoryIndex, PersistedSession, TurnRef } from './history-index.js';
import { decodeLegacyRecordAt } from './legacy-format.js';
import { decodeRecordAt } from './record-format.js';
import type { TurnRecordMeta } from './record-meta.js';
import { segmentFileName } from './segment-file.js';

const { O_RDONLY } = constants;

/** A persisted turn read back whole. */
export interface ReadTurn {
  meta: TurnRecordMeta;
  content: Buffer;
  text: string;
  /** With `meta.src` `agent`: the screen's text (`text` is the agent's answer). */
  screenText?: string;
}

/**
 * Reads records back from the segments where the index says they lie; a turn's record is
 * verified again (under its segment's key, at its offset) before its bytes are believed.
 */
export class SegmentReader {
  constructor(
    private readonly dir: string,
    private readonly index: HistoryIndex,
  ) {}

  segmentPath(n: number): string {
    return join(this.dir, segmentFileName(n));
  }

  /** A persisted turn's exact bytes and text. */
  async readTurn(ref: TurnRef): Promise<ReadTurn> {
    const fh = await openOwn(this.segmentPath(ref.segment), O_RDONLY);
    try {
      const buf = Buffer.alloc(ref.length);
      await fh.read(buf, 0, ref.length, ref.offset);
      return this.decodeTurn(ref, buf);
    } finally {
      await fh.close();
    }
  }

  /** The same, synchronously (restoring rings at start, before the daemon serves). */
  readTurnSync(ref: TurnRef): ReadTurn {
    const fd = openOwnSync(this.segmentPath(ref.segment), O_RDONLY);
    try {
      const buf = Buffer.alloc(ref.length);
      readSync(fd, buf, 0, ref.length, ref.offset);
      return this.decodeTurn(ref, buf);
    } finally {
      closeSync(fd);
    }
  }

  /** The final screen recorded with a session's exit, or null. */
  async readExitScreen(session: PersistedSession): Promise<string | null> {
    const at = session.exitAt;
    if (!at || !session.exit || session.exit.sl === 0) return null;
    const fh = await openOwn(this.segmentPath(at.segment), O_RDONLY);
    try {
      const buf = Buffer.alloc(session.exit.sl);
      await fh.read(buf, 0, buf.length, at.offset + at.length - session.exit.sl);
      return buf.toString('utf8');
    } finally {
      await fh.close();
    }
  }

  private decodeTurn(ref: TurnRef, buf: Buffer): ReadTurn {
    const seg = this.index.segments.get(ref.segment);
    const r =
      seg?.format === 1
        ? decodeLegacyRecordAt(buf, 0)
        : seg?.key
          ? decodeRecordAt(buf, 0, seg.key, ref.offset)
          : 'no key';
    if (typeof r === 'string' || r.meta.k !== 'turn')
      throw new Error(`stored turn unreadable (${typeof r === 'string' ? r : r.meta.k})`);
    const { cl, tl, stl } = r.meta;
    const textEnd = r.blobsAt + cl + tl;
    return {
      meta: r.meta,
      content: Buffer.from(buf.subarray(r.blobsAt, r.blobsAt + cl)),
      text: buf.toString('utf8', r.blobsAt + cl, textEnd),
      ...(stl !== undefined ? { screenText: buf.toString('utf8', textEnd, textEnd + stl) } : {}),
    };
  }
}

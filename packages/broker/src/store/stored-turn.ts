import type { StoredTurn } from '../turn-ring/turn-ring.js';
import type { ReadTurn } from './segment-reader.js';

/** A persisted turn read back, as the daemon holds turns everywhere else (a ring's StoredTurn). */
export function storedTurn({ meta, content, text, screenText }: ReadTurn): StoredTurn {
  return {
    turn_id: `${meta.session}:${meta.seq}`,
    session: meta.session,
    seq: meta.seq,
    timestamp: meta.timestamp,
    byte_length: content.length,
    interrupted: meta.interrupted,
    truncated: meta.truncated,
    duration_ms: meta.duration_ms,
    prompt: meta.prompt,
    text_source: meta.src ?? 'screen',
    ...(meta.agent ? { agent: meta.agent } : {}),
    ...(meta.disagreement ? { disagreement: meta.disagreement } : {}),
    content,
    text,
    ...(screenText !== undefined ? { screen_text: screenText } : {}),
  };
}

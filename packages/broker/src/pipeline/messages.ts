import type { DetectorEvent, Preset } from '@clippy/turns';

/** What a session's detector is built with, in the worker. */
export interface DetectorSetup {
  preset: Preset;
  maxTurnBytes: number;
  /** The terminal's width at start (a long input's echo wraps on it). */
  cols: number;
}

/**
 * One step of a session's pipeline, in the order the main thread took them. Output and input
 * bytes travel in the message's buffer of their session (`data[buf]`, at `at`, `length` long).
 */
export type Step =
  | { op: 'open'; id: number; cols: number; rows: number; scrollback: number }
  | { op: 'detect'; id: number; setup: DetectorSetup }
  | { op: 'out'; id: number; buf: number; at: number; length: number; now: number }
  | { op: 'in'; id: number; buf: number; at: number; length: number; now: number }
  | { op: 'resize'; id: number; cols: number; rows: number }
  /** The replay of the screen after every byte sent before this step. */
  | { op: 'serialize'; id: number; req: number }
  /** The open turn's text so far (TurnDetector.partialText). */
  | { op: 'partial'; id: number; req: number }
  | { op: 'drop-untaken'; id: number; now: number }
  | { op: 'recorded-end'; id: number; startedAt: number; tail: string | null; now: number }
  /** Answered once every step before it was taken (the detector's state is current then). */
  | { op: 'sync'; id: number; req: number }
  /** The main thread holds the PTY for this session's backlog: report progress until it ends. */
  | { op: 'held'; id: number; on: boolean }
  | { op: 'close'; id: number };

/** Main thread → pipeline worker: every session's steps queued since the last message, in order. */
export interface ToWorker {
  steps: Step[];
  /**
   * The bytes of the `out` and `in` steps, one buffer per session (transferred): a session's
   * screen model may keep its output unparsed until its screen is read, and then keeps no other
   * session's bytes alive with it.
   */
  data: ArrayBuffer[];
}

/** What the main thread mirrors of a session's detector (sent when it changes). */
export interface DetectorStatus {
  /** A turn is open, since `startedAt` (null: none), for the input `input`. */
  turnOpen: boolean;
  startedAt: number | null;
  input: string;
  /** Screen presets: submits seen and the latest the agent took; null for line presets. */
  submits: { sent: number; taken: number } | null;
  /** Screen presets: loading screens (input box gone, keys dropped) begun so far (else 0). */
  loads: number;
  /** Screen presets: the input line of the latest screen while it is idle (else null). */
  inputLine: string | null;
  /** Screen presets: the latest screen shows the preset's `interruptArmed`. */
  interruptArmed: boolean;
}

/** Pipeline worker → main thread: one session's news. */
export type Reply =
  /** Bytes of output the worker is done with (parsed by the screen model or dropped). */
  | { id: number; consumed: number }
  /**
   * The tracked terminal modes now on (after every byte scanned so far), sent when they change
   * or the output turned focus reports off (`focusOff`, whether or not they were on).
   */
  | { id: number; modes: number[]; focusOff: boolean }
  /** The terminal's answer to a query the program wrote (DA1, cursor position, mode reports). */
  | { id: number; answer: string }
  | { id: number; serialized: { req: number; replay: string } }
  | { id: number; events: DetectorEvent[] }
  | { id: number; status: DetectorStatus }
  | { id: number; partial: { req: number; text: string | null } }
  | { id: number; synced: number }
  /** A failure inside the session's detector (it goes on). */
  | { id: number; error: string };

/** Pipeline worker → main thread: the replies of one turn of the worker's event loop. */
export interface FromWorker {
  replies: Reply[];
}

/** A reply before the session's ID is put on it. */
export type ReplyBody = Reply extends infer R ? (R extends Reply ? Omit<R, 'id'> : never) : never;

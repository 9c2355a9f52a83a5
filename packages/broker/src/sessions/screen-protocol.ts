import type { ScreenSnapshot } from '@clippy/turns';

/** Messages from the broker's main thread to the screen worker. */
export type ToScreenWorker =
  | { op: 'create'; id: number; cols: number; rows: number; scrollback: number }
  | { op: 'write'; id: number; data: Uint8Array }
  | { op: 'resize'; id: number; cols: number; rows: number }
  | { op: 'serialize'; id: number; req: number }
  | { op: 'watch'; id: number; on: boolean }
  | { op: 'dispose'; id: number };

/** Messages from the screen worker back to the main thread. */
export type FromScreenWorker =
  | {
      op: 'progress';
      id: number;
      /** Bytes parsed so far (the model holds exactly these). */
      parsed: number;
      bracketedPaste: boolean;
      /** DECCKM: cursor keys send `ESC O x` (for `send --keys`). */
      applicationCursor: boolean;
      /** The rendered buffer, sent only to watched screens (screen-preset turn detection). */
      lines?: ScreenSnapshot;
    }
  | { op: 'serialized'; id: number; req: number; replay: string }
  /** The terminal's answer to a query the program wrote (DA1, cursor position, mode reports). */
  | { op: 'reply'; id: number; data: string };

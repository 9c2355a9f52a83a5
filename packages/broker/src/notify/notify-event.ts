import type { Session } from '../sessions/session.js';

/** One thing worth telling the user, decided once by the notifier and handed to each sink. */
export interface NotifyEvent {
  /** The session it is about; null for `clippy notify --test`'s event. */
  session: Session | null;
  /** The session's ID and name ("" and "clippy" for a test). */
  sessionId: string;
  name: string;
  event: 'turn' | 'blocked';
  title: string;
  body: string;
  /** `turn`: the whole answer; `blocked`: the question (what a webhook carries). */
  text: string;
  /** With `blocked`: the question read on the screen (null: none read). */
  question?: string | null;
  /** With `blocked`: its choices and the keys that pick each. */
  choices?: { label: string; keys: string[] }[];
  /** With `turn`: the finished turn's ID. */
  turnId?: string;
  /** The page plays a sound with it. */
  sound: boolean;
}

/** Somewhere a notification shows. `deliver` is true when it was handed to someone. */
export interface NotifyOutput {
  deliver(event: NotifyEvent): boolean;
  dispose?(): void;
}

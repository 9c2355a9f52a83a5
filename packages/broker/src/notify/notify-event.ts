import type { Session } from '../sessions/session.js';

/** One thing worth telling the user, decided once by the notifier and handed to each sink. */
export interface NotifyEvent {
  session: Session;
  event: 'turn' | 'blocked';
  title: string;
  body: string;
  /** With `turn`: the finished turn's ID. */
  turnId?: string;
  /** The page plays a sound with it. */
  sound: boolean;
}

/** Somewhere a notification shows. `deliver` is true when it was handed to someone. */
export interface NotifySink {
  deliver(event: NotifyEvent): boolean;
  dispose?(): void;
}

/** One connection to the broker carrying whole messages, whatever the wire underneath. */
export interface Transport {
  /** Sends one message; returns false when the OS buffer is full (the data is still queued). */
  send(message: object): boolean;
  /** Resolves once everything queued so far was handed to the OS. */
  drain(): Promise<void>;
  /** Closes the connection; `onClose` fires once after. */
  close(): void;
  onMessage: (message: Record<string, unknown>) => void;
  onClose: (error?: Error) => void;
}

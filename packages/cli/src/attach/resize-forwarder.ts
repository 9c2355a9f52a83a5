import type { ClippyClient } from '@clippy/client';
import { terminalSize } from './terminal.js';

/**
 * Resize handling: when the user's terminal changes size, an interactive attach resizes the
 * session to match (an observer never does: it only watches). dispose() stops listening.
 */
export class ResizeForwarder {
  private readonly onResize = () => {
    if (!this.interactive) return;
    this.client
      .request('resize', { session: this.session, ...terminalSize(this.stdout) })
      .catch(() => {});
  };

  constructor(
    private readonly stdout: NodeJS.WriteStream,
    private readonly client: ClippyClient,
    private readonly session: string,
    private readonly interactive: boolean,
  ) {
    stdout.on('resize', this.onResize);
  }

  dispose(): void {
    this.stdout.off('resize', this.onResize);
  }
}

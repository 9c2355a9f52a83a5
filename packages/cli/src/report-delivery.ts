import type { ClippyClient } from '@clippy/client';
import { copyToClipboard } from './clipboard.js';
import { connectForCommand, type CommonArgs } from './connect.js';

export interface DeliveryResult {
  /** Clipboard provider used, or null when copying failed or was skipped. */
  clipboard: string | null;
  /** Whether the report now sits in the broker's relay buffer. */
  relayBuffer: boolean;
  /** Why a destination was missed (printed as warnings; never fatal). */
  warnings: string[];
}

/**
 * Hands an Execution Report to the user's next agent: copies it to the clipboard and puts it
 * in the broker's relay buffer (so `clippy paste <session>` injects it). A broker is only used
 * when one is already running: a report never starts the daemon. Failures are warnings, since
 * the report itself was already produced.
 */
export async function deliverReport(
  text: string,
  args: CommonArgs & { copy?: boolean },
  opts: { client?: ClippyClient; label?: string; clipboard?: boolean } = {},
): Promise<DeliveryResult> {
  const result: DeliveryResult = { clipboard: null, relayBuffer: false, warnings: [] };
  if (args.copy === false) return result;
  // `clipboard: false` when the caller puts something else there (navigate --copy: the context).
  if (opts.clipboard !== false) {
    try {
      result.clipboard = (await copyToClipboard(text)).name;
    } catch (err) {
      result.warnings.push(`not copied to the clipboard: ${(err as Error).message}`);
    }
  }
  let client = opts.client;
  let owned = false;
  try {
    if (!client) {
      client = (await connectForCommand(args, { autoStart: false })).client;
      owned = true;
    }
    await client.request('put_buffer', { text, label: opts.label ?? 'report' });
    result.relayBuffer = true;
  } catch (err) {
    const message = (err as Error).message;
    result.warnings.push(
      /not running|no such file|ENOENT|ECONNREFUSED|XDG_RUNTIME_DIR/i.test(message)
        ? 'not put in the relay buffer: no clippy broker is running'
        : `not put in the relay buffer: ${message}`,
    );
  } finally {
    if (owned) await client?.close();
  }
  return result;
}

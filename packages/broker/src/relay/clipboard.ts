import { runClipboardTool, usableClipboardTools } from '@clippy/system/clipboard';
import { HandlerError } from '../errors.js';

export interface ClipboardOptions {
  env: Record<string, string | undefined>;
  /**
   * Last resort: hand an OSC 52 sequence to an attached client, which writes it to its own
   * terminal (that terminal sets the clipboard if it supports OSC 52). Returns whether a
   * client took it.
   */
  osc52?: (sequence: Uint8Array) => boolean;
}

/** Which provider took the text. */
export type ClipboardProvider = string;

/**
 * Puts `data` on the system clipboard with the first provider that works: wl-copy, xclip,
 * xsel, pbcopy, clip.exe (whichever exists and fits the environment), else OSC 52 through an
 * attached client. Throws `clipboard_failed` naming what was tried when none worked.
 */
export async function copyToClipboard(
  data: Uint8Array,
  opts: ClipboardOptions,
): Promise<ClipboardProvider> {
  const tried: string[] = [];
  for (const found of usableClipboardTools(opts.env)) {
    try {
      await runClipboardTool(found, data, opts.env);
      return found.tool.name;
    } catch (err) {
      tried.push((err as Error).message);
    }
  }
  if (opts.osc52) {
    const seq = Buffer.from(`\x1b]52;c;${Buffer.from(data).toString('base64')}\x07`);
    if (opts.osc52(seq)) return 'osc52';
    tried.push('osc52: no client is attached to write it to its terminal');
  }
  const detail = tried.length
    ? tried.join('; ')
    : 'none of wl-copy (Wayland), xclip or xsel (X11), pbcopy (macOS), clip.exe (WSL) is available, and no client is attached for OSC 52';
  throw new HandlerError('clipboard_failed', `could not set the clipboard: ${detail}`);
}

import {
  runClipboardTool,
  usableClipboardTools,
  type ClipboardToolFound,
} from '@clippy/system/clipboard';

export { clipboardTools, type ClipboardToolFound } from '@clippy/system/clipboard';

export interface ClipboardProvider {
  name: string;
  /** Executable and arguments; absent for OSC 52 (written to the terminal). */
  command?: string;
  args?: string[];
}

const providerOf = (found: ClipboardToolFound & { path: string }): ClipboardProvider => ({
  name: found.tool.name,
  command: found.path,
  args: [...found.tool.args],
});

interface DetectOptions {
  env?: NodeJS.ProcessEnv;
  /** Whether stderr is a terminal (OSC 52 needs one). */
  isTTY?: boolean;
}

/**
 * The first clipboard program the daemon's `deliver --sink clipboard` would also take here
 * (one rule: wl-copy with $WAYLAND_DISPLAY, xclip or xsel with $DISPLAY, pbcopy on macOS,
 * clip.exe on Windows or WSL), else OSC 52 when stderr is a terminal; null when there is none.
 */
export function detectClipboard(opts: DetectOptions = {}): ClipboardProvider | null {
  const env = opts.env ?? process.env;
  const isTTY = opts.isTTY ?? Boolean(process.stderr.isTTY);
  const [found] = usableClipboardTools(env);
  if (found) return providerOf(found);
  if (isTTY) return { name: 'osc52' };
  return null;
}

/** Copies text to the clipboard; throws a clear error when no clipboard is available. */
export async function copyToClipboard(
  text: string,
  opts: DetectOptions & { terminal?: NodeJS.WritableStream } = {},
): Promise<ClipboardProvider> {
  const env = opts.env ?? process.env;
  const [found] = usableClipboardTools(env);
  if (found) {
    await runClipboardTool(found, text, env);
    return providerOf(found);
  }
  if (!(opts.isTTY ?? Boolean(process.stderr.isTTY))) {
    throw new Error(
      'no clipboard available: install wl-copy, xclip or xsel (or pbcopy/clip.exe), ' +
        'or run in a terminal that supports OSC 52',
    );
  }
  const out = opts.terminal ?? process.stderr;
  out.write(`\x1b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\x07`);
  return { name: 'osc52' };
}

import { spawn } from 'node:child_process';
import { accessSync, constants } from 'node:fs';
import os from 'node:os';
import { delimiter, join } from 'node:path';
import { CLIPBOARD_TOOLS, clipboardToolFits } from '@clippy/protocol';
import { HandlerError } from '../errors.js';

/** How long a clipboard tool may take before it counts as failed (they return at once). */
export const CLIPBOARD_TIMEOUT_MS = 3_000;

/** The machine the tools run on (WSL's kernel release names Microsoft). */
const HOST = { platform: process.platform, release: os.release() };

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
  for (const tool of CLIPBOARD_TOOLS) {
    if (!clipboardToolFits(tool, opts.env, HOST)) continue;
    const path = findExecutable(tool.name, opts.env.PATH ?? '');
    if (!path) continue;
    try {
      await runTool(path, tool.args, data, opts.env);
      return tool.name;
    } catch (err) {
      tried.push(`${tool.name}: ${(err as Error).message}`);
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

/** The first executable file called `name` on PATH, or null. */
export function findExecutable(name: string, pathList: string): string | null {
  for (const dir of pathList.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not here
    }
  }
  return null;
}

function runTool(
  path: string,
  args: readonly string[],
  data: Uint8Array,
  env: Record<string, string | undefined>,
): Promise<void> {
  return new Promise((resolve, reject) => {
    // stdout ignored: xclip/wl-copy leave a child serving the selection that keeps pipes open,
    // so only the exit of the process we started counts, never the pipes closing.
    const child = spawn(path, args, {
      env: env as NodeJS.ProcessEnv,
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`no answer within ${CLIPBOARD_TIMEOUT_MS} ms`));
    }, CLIPBOARD_TIMEOUT_MS);
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < 2000) stderr += d.toString();
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.on('exit', (code, signal) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else reject(new Error(stderr.trim() || `exited with ${code ?? signal}`));
    });
    child.stdin.on('error', () => {
      // The tool exiting early closes its stdin; its exit status tells the story.
    });
    child.stdin.end(Buffer.from(data));
  });
}

import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import {
  CLIPBOARD_TOOLS,
  clipboardToolFits,
  clipboardToolNeeds,
  type ClipboardTool,
} from '@clippy/protocol';

/** How long a clipboard helper may take before we call it stuck (xclip waits on X errors). */
const CLIPBOARD_TIMEOUT_MS = 5_000;

export interface ClipboardProvider {
  name: string;
  /** Executable and arguments; absent for OSC 52 (written to the terminal). */
  command?: string;
  args?: string[];
}

interface DetectOptions {
  env?: NodeJS.ProcessEnv;
  /** Whether stderr is a terminal (OSC 52 needs one). */
  isTTY?: boolean;
}

function onPath(cmd: string, env: NodeJS.ProcessEnv): string | undefined {
  for (const dir of (env.PATH ?? '').split(path.delimiter)) {
    if (!dir) continue;
    const p = path.join(dir, cmd);
    try {
      fs.accessSync(p, fs.constants.X_OK);
      if (fs.statSync(p).isFile()) return p;
    } catch {
      // not here
    }
  }
  return undefined;
}

/** A clipboard program as found with an environment on this machine. */
export interface ClipboardToolFound {
  tool: ClipboardTool;
  /** Where it is on the environment's PATH. */
  path: string | undefined;
  /** Whether it can work with that environment. */
  fits: boolean;
  /** What it needs (`$DISPLAY`), for a message. */
  needs: string;
}

/** Every clipboard program, in the order they are tried, as found with `env` here. */
export function clipboardTools(env: NodeJS.ProcessEnv): ClipboardToolFound[] {
  const host = { platform: process.platform, release: os.release() };
  return CLIPBOARD_TOOLS.map((tool) => ({
    tool,
    path: onPath(tool.name, env),
    fits: clipboardToolFits(tool, env, host),
    needs: clipboardToolNeeds(tool),
  }));
}

/**
 * The first clipboard program the daemon's `deliver --sink clipboard` would also take here
 * (one rule: wl-copy with $WAYLAND_DISPLAY, xclip or xsel with $DISPLAY, pbcopy on macOS,
 * clip.exe on Windows or WSL), else OSC 52 when stderr is a terminal; null when there is none.
 */
export function detectClipboard(opts: DetectOptions = {}): ClipboardProvider | null {
  const env = opts.env ?? process.env;
  const isTTY = opts.isTTY ?? Boolean(process.stderr.isTTY);
  const found = clipboardTools(env).find((t) => t.fits && t.path);
  if (found) return { name: found.tool.name, command: found.path!, args: [...found.tool.args] };
  if (isTTY) return { name: 'osc52' };
  return null;
}

/** Copies text to the clipboard; throws a clear error when no clipboard is available. */
export async function copyToClipboard(
  text: string,
  opts: DetectOptions & { terminal?: NodeJS.WritableStream } = {},
): Promise<ClipboardProvider> {
  const provider = detectClipboard(opts);
  if (!provider) {
    throw new Error(
      'no clipboard available: install wl-copy, xclip or xsel (or pbcopy/clip.exe), ' +
        'or run in a terminal that supports OSC 52',
    );
  }
  if (!provider.command) {
    const out = opts.terminal ?? process.stderr;
    out.write(`\x1b]52;c;${Buffer.from(text, 'utf8').toString('base64')}\x07`);
    return provider;
  }
  await new Promise<void>((resolve, reject) => {
    const child = spawn(provider.command!, provider.args ?? [], {
      stdio: ['pipe', 'ignore', 'pipe'],
      env: opts.env ?? process.env,
    });
    let stderr = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${provider.name} did not finish within ${CLIPBOARD_TIMEOUT_MS} ms`));
    }, CLIPBOARD_TIMEOUT_MS);
    child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`${provider.name} failed: ${err.message}`));
    });
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve();
      else
        reject(
          new Error(
            `${provider.name} exited with code ${code}${stderr ? `: ${stderr.trim()}` : ''}`,
          ),
        );
    });
    child.stdin?.on('error', () => {});
    child.stdin?.end(text);
  });
  return provider;
}

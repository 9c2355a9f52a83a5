import { spawn } from 'node:child_process';
import { accessSync, constants, statSync } from 'node:fs';
import os from 'node:os';
import { delimiter, join } from 'node:path';
import { CLIPBOARD_TOOLS, clipboardToolFits, clipboardToolNeeds } from './clipboard-tools.js';
import type { ClipboardHost, ClipboardTool } from './clipboard-tools.js';

/**
 * Running the clipboard programs of clipboard-tools.ts, for the daemon (`deliver --sink
 * clipboard`) and the CLI (reports, `map --copy`, `clippy doctor`): one way to find them and
 * one way to run them. Here, not in protocol: it runs programs, and the daemon and the CLI,
 * which may not import each other, both copy.
 */

/** How long a clipboard program may take before it counts as stuck (xclip waits on X errors; they otherwise return at once). */
export const CLIPBOARD_TIMEOUT_MS = 5_000;

/** The machine the programs run on (WSL's kernel release names Microsoft). */
const HOST: ClipboardHost = { platform: process.platform, release: os.release() };

/** The first executable file called `name` on `pathList` (a PATH value), or null. */
export function findExecutable(name: string, pathList: string): string | null {
  for (const dir of pathList.split(delimiter)) {
    if (!dir) continue;
    const candidate = join(dir, name);
    try {
      accessSync(candidate, constants.X_OK);
      if (statSync(candidate).isFile()) return candidate;
    } catch {
      // not here
    }
  }
  return null;
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
export function clipboardTools(env: Record<string, string | undefined>): ClipboardToolFound[] {
  return CLIPBOARD_TOOLS.map((tool) => ({
    tool,
    path: findExecutable(tool.name, env.PATH ?? '') ?? undefined,
    fits: clipboardToolFits(tool, env, HOST),
    needs: clipboardToolNeeds(tool),
  }));
}

/** The programs that fit `env` and are on its PATH, in the order they are tried. */
export function usableClipboardTools(
  env: Record<string, string | undefined>,
): (ClipboardToolFound & { path: string })[] {
  return clipboardTools(env).filter(
    (t): t is ClipboardToolFound & { path: string } => t.fits && t.path !== undefined,
  );
}

/**
 * Pipes `data` to the clipboard program `found`; rejects with an error naming the program
 * (`xsel exited with code 3: …`, `… did not finish within 5000 ms`).
 */
export function runClipboardTool(
  found: { tool: ClipboardTool; path: string },
  data: Uint8Array | string,
  env: Record<string, string | undefined>,
): Promise<void> {
  const { name } = found.tool;
  return new Promise((resolve, reject) => {
    // stdout ignored and only the exit of the process we started counts, never the pipes
    // closing: xclip and wl-copy leave a child serving the selection that keeps them open.
    const child = spawn(found.path, found.tool.args, {
      env: env as NodeJS.ProcessEnv,
      stdio: ['pipe', 'ignore', 'pipe'],
    });
    let stderr = '';
    let stderrClosed = false;
    let failed: string | undefined;
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not finish within ${CLIPBOARD_TIMEOUT_MS} ms`));
    }, CLIPBOARD_TIMEOUT_MS);
    // A program that failed serves no selection: its stderr closes with it, and what it said
    // there is the reason, read to the end rather than cut at the exit.
    const rejectFailed = () => {
      if (failed === undefined || !stderrClosed) return;
      clearTimeout(timer);
      const said = stderr.trim();
      reject(new Error(`${name} ${failed}${said ? `: ${said}` : ''}`));
    };
    child.stderr.on('data', (d: Buffer) => {
      if (stderr.length < 2000) stderr += d.toString();
    });
    child.stderr.on('close', () => {
      stderrClosed = true;
      rejectFailed();
    });
    child.on('error', (err) => {
      clearTimeout(timer);
      reject(new Error(`${name} failed: ${err.message}`));
    });
    child.on('exit', (code, signal) => {
      if (code === 0) {
        clearTimeout(timer);
        resolve();
        return;
      }
      failed = code === null ? `was stopped by ${signal}` : `exited with code ${code}`;
      rejectFailed();
    });
    child.stdin.on('error', () => {
      // The program exiting early closes its stdin; its exit status tells the story.
    });
    child.stdin.end(typeof data === 'string' ? data : Buffer.from(data));
  });
}

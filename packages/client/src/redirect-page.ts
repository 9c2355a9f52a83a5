import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { resolveSocketPaths } from '@clippy/protocol';

// `clippy web --open` and VS Code's Open Web View hand the desktop's opener (and maybe a browser
// starting cold) an address to open. Every user can read a process's command line (`ps`), so that address must not carry
// the token: it is a file only this user can read, a page that sends the browser on to the web
// view's URL — as Jupyter does.

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`);
}

/** The page: an immediate redirect, no Referer, and a link for a browser that does not follow. */
function redirectHtml(url: string): string {
  const href = escapeHtml(url);
  return (
    '<!doctype html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n' +
    '<meta name="referrer" content="no-referrer">\n' +
    `<meta http-equiv="refresh" content="0;url=${href}">\n<title>clippy web view</title>\n` +
    `</head>\n<body>\n<p>Opening the clippy web view: <a href="${href}">continue</a>.</p>\n` +
    '</body>\n</html>\n'
  );
}

/** Whether only this user can enter `dir` (owned by them, no access for group or others). */
function isPrivateDir(dir: string): boolean {
  try {
    const st = fs.lstatSync(dir);
    return st.isDirectory() && st.uid === process.getuid?.() && (st.mode & 0o077) === 0;
  } catch {
    return false;
  }
}

/** The page's name, after the socket's (`broker.sock` → `broker-web.html`). */
function pageName(socketPath: string): string {
  return `${path.basename(socketPath).replace(/\.sock$/, '')}-web.html`;
}

/**
 * Where the page goes: beside the daemon's socket (a 0700 directory the daemon keeps), named
 * after the socket so that two daemons sharing a directory never take each other's; when that
 * directory is not private (a socket given by path elsewhere), a new private one in the temp dir.
 */
function pagePath(env: NodeJS.ProcessEnv, socket: string | undefined): string {
  let paths: ReturnType<typeof resolveSocketPaths> | null = null;
  try {
    paths = resolveSocketPaths(env, socket);
  } catch {
    paths = null;
  }
  const name = pageName(paths?.socket ?? 'broker.sock');
  if (paths && isPrivateDir(paths.dir)) return path.join(paths.dir, name);
  return path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-web-')), name);
}

/**
 * Writes the redirect page for `url` (mode 0600, replaced whole) and returns its file:// URL,
 * which names no secret.
 */
export function writeRedirectPage(
  url: string,
  env: NodeJS.ProcessEnv,
  socket: string | undefined,
): string {
  const file = pagePath(env, socket);
  const partial = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(partial, redirectHtml(url), { mode: 0o600, flag: 'wx' });
  fs.renameSync(partial, file);
  return pathToFileURL(file).href;
}

/** Removes the redirect page beside the socket (the token it names ended with the endpoint). */
export function removeRedirectPage(env: NodeJS.ProcessEnv, socket: string | undefined): void {
  try {
    const { dir, socket: sock } = resolveSocketPaths(env, socket);
    fs.rmSync(path.join(dir, pageName(sock)), { force: true });
  } catch {
    // No runtime directory: no page was written beside the socket.
  }
}

import * as vscode from 'vscode';
import { REQUEST_TIMEOUT_MS } from '../limits.js';
import type { Command } from './context.js';

/**
 * Open Web View: asks the daemon for its web view (`web_start`, as `clippy web` does: started
 * when it does not run) and opens it in the browser through a page only this user can read
 * (0600, beside the daemon's socket) that sends the browser on to the URL, as `clippy web
 * --open` does: VS Code hands a URL to the system's opener on its command line, which every user
 * sees (`ps`), so the URL with its token is never given. In a remote window the page would be
 * on the other machine: the URL is copied to the clipboard instead, to paste into the browser.
 * The message names only the address, never the token.
 */
export const openWeb: Command = {
  id: 'clippy.openWeb',
  async run(ctx) {
    const c = await ctx.link.client();
    // A one-time code for the browser: the token stays out of its history.
    const r = await c.request('web_start', { code: true }, { timeoutMs: REQUEST_TIMEOUT_MS });
    const origin = new URL(r.url).origin;
    const started = r.started ? ', just started' : '';
    if (vscode.env.remoteName) {
      await vscode.env.clipboard.writeText(r.url);
      void vscode.window.showInformationMessage(
        `clippy: the web view runs at ${origin}${started} on the remote machine: its URL is in the clipboard (forward the port to reach it)`,
      );
      return r;
    }
    const opened = await vscode.env.openExternal(
      vscode.Uri.file(ctx.link.redirectPage(r.code_url ?? r.url)),
    );
    if (opened) {
      void vscode.window.showInformationMessage(
        `clippy: the web view (${origin}${started}) opened in your browser`,
      );
    } else {
      void vscode.window.showWarningMessage(
        `clippy: the web view runs at ${origin} but no browser opened it: run \`clippy web\` for its URL`,
      );
    }
    return r;
  },
};

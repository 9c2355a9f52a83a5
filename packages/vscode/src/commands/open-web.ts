import * as vscode from 'vscode';
import { REQUEST_TIMEOUT_MS } from '../limits.js';
import type { Command } from './context.js';

/**
 * Open Web View: asks the daemon for its web view (`web_start`, as `clippy web` does: started
 * when it does not run) and opens the URL the daemon hands out in the browser, exactly as given:
 * how it carries its access token is the daemon's business. The message names only the
 * address, never the token.
 */
export const openWeb: Command = {
  id: 'clippy.openWeb',
  async run(ctx) {
    const c = await ctx.link.client();
    const r = await c.request('web_start', {}, { timeoutMs: REQUEST_TIMEOUT_MS });
    // openExternal takes a Uri, and vscode.Uri re-encodes what it parses (query and fragment
    // characters: microsoft/vscode#85930); the string itself is opened as it is.
    const opened = await vscode.env.openExternal(r.url as unknown as vscode.Uri);
    const origin = new URL(r.url).origin;
    if (opened) {
      void vscode.window.showInformationMessage(
        `clippy: the web view (${origin}${r.started ? ', just started' : ''}) opened in your browser`,
      );
    } else {
      void vscode.window.showWarningMessage(
        `clippy: the web view runs at ${origin} but no browser opened it: run \`clippy web\` for its URL`,
      );
    }
    return r;
  },
};

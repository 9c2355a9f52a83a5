import * as vscode from 'vscode';
import { INJECT_TIMEOUT_MS } from '../limits.js';
import type { Command } from './context.js';
import { chooseSession } from './pick.js';

/** Relay Latest Turn: the latest turn of one session typed into another (`clippy relay A B`). */
export const relay: Command = {
  id: 'clippy.relay',
  async run(ctx, fromArg?: unknown, toArg?: unknown) {
    const from = await chooseSession(ctx, fromArg, {
      withTurn: true,
      placeHolder: 'Relay the latest turn of…',
    });
    if (!from) return undefined;
    const to = await chooseSession(ctx, toArg, {
      live: true,
      except: from.info?.session,
      placeHolder: `Relay the latest turn of ${from.name} into…`,
    });
    if (!to) return undefined;
    const c = await ctx.link.client();
    const r = await c.request(
      'relay',
      { from: from.ref, to: to.ref },
      { timeoutMs: INJECT_TIMEOUT_MS },
    );
    if (r.submitted) {
      void vscode.window.showInformationMessage(
        `clippy: relayed ${r.turn_id} (${r.size} bytes) from ${from.name} to ${to.name}`,
      );
    } else {
      void vscode.window.showWarningMessage(
        `clippy: relayed ${r.turn_id} into ${to.name}, but ${to.name} did not react to Enter`,
      );
    }
    return r;
  },
};

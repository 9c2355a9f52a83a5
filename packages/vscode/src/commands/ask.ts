import * as vscode from 'vscode';
import type { Turn } from '@clippy/protocol';
import { UserError } from '../errors.js';
import { INJECT_TIMEOUT_MS, REQUEST_TIMEOUT_MS } from '../limits.js';
import type { Command } from './context.js';
import { chooseSession } from './pick.js';
import { selectedText } from './selection.js';

/**
 * Ask: sends the selection to a session, waits (without blocking the editor) for the turn it
 * produces and shows exactly that turn's text beside the editor, as `clippy ask` prints it.
 */
export const ask: Command = {
  id: 'clippy.ask',
  async run(ctx, session?: unknown) {
    const text = selectedText('ask');
    const target = await chooseSession(ctx, session, {
      live: true,
      placeHolder: 'Ask… about the selection',
    });
    if (!target) return undefined;
    const c = await ctx.link.client();
    const id = target.info?.session ?? target.ref;
    ctx.asking.add(id);
    let turn: Turn | undefined;
    try {
      turn = await vscode.window.withProgress(
        {
          location: vscode.ProgressLocation.Notification,
          title: `clippy: asking ${target.name}`,
          cancellable: true,
        },
        async (progress, token) => {
          // The answer is the first turn after the latest one stored now (as `clippy ask`
          // does), so a turn completing between the send and the wait is not missed.
          const { turns } = await c.request(
            'list_turns',
            { session: target.ref, limit: 1 },
            { timeoutMs: REQUEST_TIMEOUT_MS },
          );
          const after = turns[0]?.turn_id ?? `${target.ref}:0`;
          const sent = await c.request(
            'send',
            { session: target.ref, text, enter: true, complete: true },
            { timeoutMs: INJECT_TIMEOUT_MS },
          );
          if (!sent.submitted) {
            throw new UserError(
              `the text was typed into ${target.name} but it did not react to Enter`,
            );
          }
          progress.report({ message: 'waiting for its answer…' });
          const limit = ctx.settings().askTimeoutMs;
          // The daemon enforces the limit (answering `timeout`); no second clock here.
          const waited = c
            .request(
              'wait_turn',
              { session: target.ref, after, ...(limit > 0 ? { timeout_ms: limit } : {}) },
              { timeoutMs: 0 },
            )
            .then((r) => r.turn);
          const cancelled = new Promise<undefined>((resolve) =>
            token.onCancellationRequested(() => resolve(undefined)),
          );
          return Promise.race([waited, cancelled]);
        },
      );
    } finally {
      ctx.asking.delete(id);
    }
    if (!turn) {
      void vscode.window.showInformationMessage(
        `clippy: stopped waiting for ${target.name}'s answer (it is still stored as a turn)`,
      );
      return undefined;
    }
    await ctx.turns.show(turn.turn_id, target.name, true);
    void vscode.window.showInformationMessage(
      `clippy: ${target.name} answered (turn ${turn.turn_id})`,
    );
    return turn;
  },
};

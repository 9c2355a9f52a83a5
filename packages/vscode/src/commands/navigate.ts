import { spawn } from 'node:child_process';
import * as vscode from 'vscode';
import type { SessionInfo } from '@clippy/protocol';
import { cliEnv } from '../cli-env.js';
import { UserError } from '../errors.js';
import { REQUEST_TIMEOUT_MS, STDERR_TAIL_BYTES } from '../limits.js';
import type { Command, CommandContext } from './context.js';

/** `clippy navigate`'s exit code when cancelled (SIGINT), as docs/navigator.md says. */
const NAVIGATE_CANCELLED = 130;

/** The workspace folder to map: the only one, or the one the user picks. */
async function chooseFolder(given: unknown): Promise<string | undefined> {
  if (typeof given === 'string' && given !== '') return given;
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length === 0) {
    throw new UserError('open a folder first: the navigator maps a repository');
  }
  if (folders.length === 1) return folders[0]!.uri.fsPath;
  const picked = await vscode.window.showWorkspaceFolderPick({
    placeHolder: 'Which folder should the navigator map?',
  });
  return picked?.uri.fsPath;
}

/** Runs the CLI's navigator; resolves with its exit code, its stderr's tail and its PID. */
function runNavigator(
  ctx: CommandContext,
  args: string[],
  cwd: string,
  token: vscode.CancellationToken,
): Promise<{ code: number; stderr: string; pid: number | undefined }> {
  const [program, ...first] = ctx.settings().command;
  return new Promise((resolve, reject) => {
    const child = spawn(program!, [...first, ...args], {
      cwd,
      env: cliEnv(),
      // The context goes to stdout: the daemon keeps it as the run's last turn, read from there.
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    ctx.processes.add(child);
    let stderr = '';
    child.stderr.on('data', (d: Buffer) => {
      stderr = (stderr + d.toString()).slice(-STDERR_TAIL_BYTES);
    });
    const cancel = token.onCancellationRequested(() => child.kill('SIGINT'));
    child.once('error', (err: NodeJS.ErrnoException) => {
      cancel.dispose();
      reject(
        new UserError(
          err.code === 'ENOENT'
            ? `\`${program}\` was not found: install clippy (npm) or set the clippy.command setting`
            : `\`${program}\` could not run: ${err.message}`,
        ),
      );
    });
    child.once('close', (code, signal) => {
      cancel.dispose();
      resolve({
        code: code ?? (signal === 'SIGINT' ? NAVIGATE_CANCELLED : 1),
        stderr,
        pid: child.pid,
      });
    });
  });
}

/** The navigator session a run registered: the one with the run's PID, else the newest since. */
function runSession(sessions: SessionInfo[], pid: number | undefined, since: number) {
  const navigators = sessions.filter((s) => s.kind === 'navigator');
  return (
    navigators.find((s) => s.pid === pid) ??
    navigators.filter((s) => s.created_at >= since).sort((a, b) => b.created_at - a.created_at)[0]
  );
}

/**
 * Navigate: a navigator run for a goal over the workspace, by the CLI (`clippy navigate`), as a
 * person would run it. The run registers with the daemon as a session (it shows in the view
 * while it works; `--keep-session` keeps it after, so its turns stay readable and relayable)
 * and its final context, its last turn, opens beside the editor.
 */
export const navigate: Command = {
  id: 'clippy.navigate',
  async run(ctx, goalArg?: unknown, folderArg?: unknown) {
    const goal =
      typeof goalArg === 'string'
        ? goalArg
        : await vscode.window.showInputBox({
            prompt: 'What is the context for? The navigator maps the repository for this goal.',
            placeHolder: 'fix the token refresh bug in auth',
            ignoreFocusOut: true,
          });
    if (!goal?.trim()) return undefined;
    const folder = await chooseFolder(folderArg);
    if (!folder) return undefined;
    // The run registers only with a daemon that runs: make sure this one does.
    const c = await ctx.link.client();
    const since = Date.now();
    const socket = ctx.settings().socket;
    const args = [
      'navigate',
      folder,
      '--goal',
      goal.trim(),
      '--keep-session',
      '--quiet',
      ...(socket ? ['--socket', socket] : []),
    ];
    const run = await vscode.window.withProgress(
      {
        location: vscode.ProgressLocation.Notification,
        title: `clippy: navigating for "${goal.trim()}"`,
        cancellable: true,
      },
      (_progress, token) => runNavigator(ctx, args, folder, token),
    );
    if (run.code === NAVIGATE_CANCELLED) {
      void vscode.window.showInformationMessage('clippy: the navigator run was cancelled');
      return undefined;
    }
    if (run.code !== 0) {
      const why = run.stderr.trim().split('\n').slice(-3).join(' ');
      throw new UserError(`clippy navigate exited with code ${run.code}${why ? `: ${why}` : ''}`);
    }
    const { sessions } = await c.request('list_sessions', {}, { timeoutMs: REQUEST_TIMEOUT_MS });
    const session = runSession(sessions, run.pid, since);
    if (!session?.has_turn) {
      throw new UserError('the navigator run finished but registered no session with the daemon');
    }
    const { turn } = await c.request(
      'get_turn',
      { session: session.session },
      { timeoutMs: REQUEST_TIMEOUT_MS },
    );
    await ctx.turns.show(turn.turn_id, session.name, true);
    void vscode.window.showInformationMessage(
      `clippy: the context for "${goal.trim()}" is turn ${turn.turn_id} of ${session.name}; Relay Latest Turn hands it to an agent`,
    );
    return turn;
  },
};

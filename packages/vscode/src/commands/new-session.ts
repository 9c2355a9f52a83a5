import os from 'node:os';
import path from 'node:path';
import * as vscode from 'vscode';
import { parse } from 'shell-quote';
import { BrokerError } from '@clippy/client';
import { cliFailure, runCli } from '../cli-run.js';
import { UserError } from '../errors.js';
import { REQUEST_TIMEOUT_MS } from '../limits.js';
import type { Command, CommandContext } from './context.js';

/** What New Session may be given instead of asked (by another extension, a keybinding's args). */
export interface NewSessionOptions {
  /** The command line, as typed in a shell: `claude --model opus`. */
  command?: string;
  /** A preset name (list_presets); undefined: picked, or the daemon's default. */
  preset?: string;
  /** true: --persist, false: --no-persist, null: as config.json says. */
  persist?: boolean | null;
  /** The working directory; default: the workspace folder. */
  folder?: string;
  /** A session name; default: the daemon's (from the command). */
  name?: string;
  /** Open it in a terminal (default true), as `clippy new` attaches. */
  open?: boolean;
}

/** What `clippy new -d --json` prints. */
interface Created {
  session: string;
  name: string;
  pid: number;
}

/** The command line as words, as a shell would split it; operators need a shell of their own. */
export function commandWords(line: string): string[] {
  const words: string[] = [];
  for (const w of parse(line, (name) => `$${name}`)) {
    if (typeof w !== 'string') {
      throw new UserError(
        `'${line}' is more than a command: for pipes, redirections or globs run a shell, e.g. sh -c '${line.replace(/'/g, "'\\''")}'`,
      );
    }
    words.push(w);
  }
  return words;
}

/** The workspace folder new sessions run in: the only one, the one picked, or the home directory. */
async function chooseFolder(given: string | undefined): Promise<string | undefined> {
  if (given) return given;
  const folders = vscode.workspace.workspaceFolders ?? [];
  if (folders.length === 0) return os.homedir();
  if (folders.length === 1) return folders[0]!.uri.fsPath;
  const picked = await vscode.window.showWorkspaceFolderPick({
    placeHolder: 'Run the new session in which folder?',
  });
  return picked?.uri.fsPath;
}

/** The remembered command line (the last one started from this window). */
let lastCommand: string | undefined;

/** Asks for the command line; the last one (else the user's shell) is offered. */
async function askCommand(): Promise<string | undefined> {
  const shell = process.env.SHELL ? path.basename(process.env.SHELL) : 'bash';
  const line = await vscode.window.showInputBox({
    title: 'New clippy session (1/3): command',
    prompt: 'The command to run in the new session, as in a shell (an agent, a shell, a REPL)',
    placeHolder: 'claude',
    value: lastCommand ?? shell,
    ignoreFocusOut: true,
  });
  return line?.trim() ? line.trim() : undefined;
}

interface PresetItem extends vscode.QuickPickItem {
  preset: string;
}

/**
 * Picks the turn preset: the daemon's list, the one named like the program first (`claude` runs
 * with the `claude` preset), then the default. A daemon without list_presets (an older clippy)
 * gets its default without asking.
 */
async function choosePreset(
  ctx: CommandContext,
  program: string,
): Promise<string | null | undefined> {
  const c = await ctx.link.client();
  let listed;
  try {
    listed = await c.request('list_presets', {}, { timeoutMs: REQUEST_TIMEOUT_MS });
  } catch (err) {
    if (err instanceof BrokerError && err.code === 'unknown_type') return null;
    throw err;
  }
  const base = path.basename(program);
  const rank = (name: string) => (name === base ? 0 : name === listed.default ? 1 : 2);
  const items: PresetItem[] = [...listed.presets]
    .sort((a, b) => rank(a.name) - rank(b.name) || a.name.localeCompare(b.name))
    .map((p) => ({
      label: p.name,
      description: [
        p.kind,
        ...(p.name === base ? [`for ${base}`] : []),
        ...(p.name === listed.default ? ['the default'] : []),
        ...(p.user ? ['presets.json'] : []),
      ].join(' · '),
      detail: p.description,
      preset: p.name,
    }));
  const picked = await vscode.window.showQuickPick(items, {
    title: 'New clippy session (2/3): turn preset',
    placeHolder: `How turns of ${base} are detected`,
    matchOnDescription: true,
    ignoreFocusOut: true,
  });
  return picked?.preset;
}

interface PersistItem extends vscode.QuickPickItem {
  persist: boolean | null;
}

/** Asks whether the session's turns are kept on disk (`--persist`). */
async function choosePersist(): Promise<boolean | null | undefined> {
  const items: PersistItem[] = [
    {
      label: 'As configured',
      description: "config.json's persist (off unless set)",
      persist: null,
    },
    {
      label: 'Keep its turns on disk',
      description: '--persist',
      detail: 'They survive a daemon restart; `clippy history` searches them',
      persist: true,
    },
    { label: 'Do not keep them on disk', description: '--no-persist', persist: false },
  ];
  const picked = await vscode.window.showQuickPick(items, {
    title: 'New clippy session (3/3): turn history',
    placeHolder: 'Keep its turns on disk?',
    ignoreFocusOut: true,
  });
  return picked?.persist;
}

/**
 * New Session: a command started in a new session owned by the daemon, in the workspace folder,
 * with the preset picked (and `--persist` if asked), by `clippy new -d` (the CLI gives it the
 * editor's environment and the session's TERM, as from a shell), then opened in a terminal.
 */
export const newSession: Command = {
  id: 'clippy.newSession',
  async run(ctx, arg?: unknown) {
    const opts: NewSessionOptions = typeof arg === 'object' && arg !== null ? arg : {};
    const line = opts.command ?? (await askCommand());
    if (!line) return undefined;
    const words = commandWords(line);
    if (words.length === 0) return undefined;
    // The daemon that runs it (started if allowed): its presets are the ones offered.
    await ctx.link.client();
    const preset = opts.preset !== undefined ? opts.preset : await choosePreset(ctx, words[0]!);
    if (preset === undefined) return undefined;
    const persist = opts.persist !== undefined ? opts.persist : await choosePersist();
    if (persist === undefined) return undefined;
    const folder = await chooseFolder(opts.folder);
    if (!folder) return undefined;
    const socket = ctx.settings().socket;
    const args = [
      'new',
      '-d',
      '--json',
      '--cwd',
      folder,
      ...(opts.name ? ['--name', opts.name] : []),
      ...(preset !== null ? ['--preset', preset] : []),
      ...(persist === true ? ['--persist'] : persist === false ? ['--no-persist'] : []),
      ...(socket ? ['--socket', socket] : []),
      '--',
      ...words,
    ];
    const run = await runCli(ctx.settings().command, args, {
      cwd: folder,
      processes: ctx.processes,
    });
    if (run.code !== 0) {
      throw new UserError(`could not start \`${line}\`: ${cliFailure(run) || `exit ${run.code}`}`);
    }
    const created = JSON.parse(run.stdout) as Created;
    lastCommand = line;
    if (opts.open !== false) ctx.terminals.show(created.session, created.name);
    void vscode.window.showInformationMessage(
      `clippy: started ${created.name} (\`${line}\`${preset ? `, preset ${preset}` : ''}) in ${folder}`,
    );
    return created;
  },
};

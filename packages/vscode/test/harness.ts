// What the extension's tests share: activating it (against the test's own daemon and the built
// CLI), reading what it showed through the VS Code double, and waiting for things to happen.
import xterm from '@xterm/headless';
import { bins } from '@clippy/testkit/paths';
import { eventually as testkitEventually } from '@clippy/testkit/until';
import { activate, type ClippyExtension } from '../src/extension.js';
import {
  editor,
  extensionContext,
  type Level,
  type Message,
  type Terminal,
  type TreeItem,
} from './vscode-double.js';

const { Terminal: Xterm } = xterm;

/** How long something the extension shows asynchronously may take on a loaded 2-core machine. */
export const SHOWN_TIMEOUT_MS = 15_000;
/** Pause between two looks. */
const POLL_MS = 20;

export interface Running {
  api: ClippyExtension;
  /** Disposes what activate() registered, as VS Code does on deactivation. */
  stop(): void;
}

/**
 * Activates the extension as VS Code would, in an environment of the test's (its own
 * XDG_RUNTIME_DIR: the extension finds the daemon where the CLI would), with the built CLI as
 * `clippy.command`.
 */
export function startExtension(
  env: NodeJS.ProcessEnv,
  settings: Record<string, unknown> = {},
): Running {
  for (const key of ['XDG_RUNTIME_DIR', 'XDG_STATE_HOME', 'XDG_CONFIG_HOME', 'XDG_CACHE_HOME']) {
    process.env[key] = env[key];
  }
  delete process.env.CLIPPY_SOCKET;
  // A key in the developer's environment would send navigator runs to Gemini.
  delete process.env.GEMINI_API_KEY;
  delete process.env.GOOGLE_API_KEY;
  process.env.CLIPPYD_PATH = bins.clippyd;
  editor.settings = { 'clippy.command': [process.execPath, bins.clippy], ...settings };
  const context = extensionContext();
  const api = activate(context as never);
  return {
    api,
    stop: () => {
      for (const d of context.subscriptions.splice(0)) d.dispose();
    },
  };
}

/** testkit's `eventually` with the patience of what an editor shows (SHOWN_TIMEOUT_MS). */
export function eventually<T>(
  check: () => T | undefined | false | null | Promise<T | undefined | false | null>,
  what: string,
  timeoutMs = SHOWN_TIMEOUT_MS,
): Promise<T> {
  return testkitEventually(check, what, timeoutMs, POLL_MS);
}

/** The first message of that level matching `re` (waiting for it). */
export function messageShown(level: Level, re: RegExp): Promise<Message> {
  return eventually(
    () => editor.messages.find((m) => m.level === level && re.test(m.text)),
    `a ${level} message matching ${re} (messages: ${JSON.stringify(editor.messages.map((m) => m.text))})`,
  );
}

/** The view's top rows as a person reads them: `label  description`. */
export async function viewRows(): Promise<string[]> {
  const provider = editor.treeProviders.get('clippy.sessions');
  if (!provider) throw new Error('the clippy view is not registered');
  const nodes = await provider.getChildren();
  return nodes.map((n) => rowText(provider.getTreeItem(n)));
}

/** The rows under the view's row labelled `label`. */
export async function viewChildren(label: string): Promise<{ rows: string[]; nodes: unknown[] }> {
  const provider = editor.treeProviders.get('clippy.sessions')!;
  const top = (await provider.getChildren()).find((n) => provider.getTreeItem(n).label === label);
  if (!top) throw new Error(`no row '${label}' in the view`);
  const nodes = await provider.getChildren(top);
  return { rows: nodes.map((n) => rowText(provider.getTreeItem(n))), nodes };
}

/** The view's node for the session row labelled `label` (what a context-menu command receives). */
export async function viewNode(label: string): Promise<unknown> {
  const provider = editor.treeProviders.get('clippy.sessions')!;
  const node = (await provider.getChildren()).find((n) => provider.getTreeItem(n).label === label);
  if (!node) throw new Error(`no row '${label}' in the view`);
  return node;
}

/**
 * Whether the view shows its welcome (package.json viewsWelcome: a New Session button): VS Code
 * shows it when the view has no rows and its `when` holds (connected, no session).
 */
export async function welcomeShown(): Promise<boolean> {
  return (
    (await viewRows()).length === 0 &&
    editor.context.get('clippy.connected') === true &&
    editor.context.get('clippy.hasSessions') === false
  );
}

function rowText(item: TreeItem): string {
  return item.description ? `${item.label}  ${item.description}` : item.label;
}

/** The status bar item's text. */
export function statusText(): string {
  const item = editor.statusBarItems.find((i) => i.name === 'clippy' && !i.disposed);
  return item?.text ?? '(no status bar item)';
}

/** A terminal's screen as VS Code's xterm.js would show it: its lines, trailing blanks cut. */
export async function screenOf(t: Terminal, cols = 80, rows = 24): Promise<string[]> {
  const term = new Xterm({ cols, rows, allowProposedApi: true, scrollback: 200 });
  await new Promise<void>((r) => term.write(t.output, r));
  const buf = term.buffer.active;
  const lines: string[] = [];
  for (let i = 0; i < buf.length; i++) lines.push(buf.getLine(i)?.translateToString(true) ?? '');
  term.dispose();
  while (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
  return lines;
}

/** Runs a command as the palette or a menu would, with these arguments. */
export function run(command: string, ...args: unknown[]): Promise<unknown> {
  const fn = editor.commands.get(command);
  if (!fn) throw new Error(`command ${command} is not registered`);
  return Promise.resolve(fn(...args));
}

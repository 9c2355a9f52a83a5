// A hand-written stand-in for the `vscode` module (vitest aliases `vscode` to this file): the
// parts of VS Code's API the extension uses, each recording what the extension asked the editor
// to do, and answering as a user would when a test says how (`editor.answers`). Only VS Code is
// doubled: the extension talks to a real daemon through it.
import fs from 'node:fs';
import path from 'node:path';

// ---- Plain values --------------------------------------------------------------------------

export class Disposable {
  constructor(private readonly fn: () => void = () => {}) {}
  static from(...items: { dispose(): unknown }[]): Disposable {
    return new Disposable(() => items.forEach((i) => i.dispose()));
  }
  dispose(): void {
    this.fn();
  }
}

export type Event<T> = (listener: (e: T) => unknown) => Disposable;

export class EventEmitter<T> {
  private listeners = new Set<(e: T) => unknown>();
  readonly event: Event<T> = (listener) => {
    this.listeners.add(listener);
    return new Disposable(() => this.listeners.delete(listener));
  };
  fire(e: T): void {
    for (const l of [...this.listeners]) l(e);
  }
  dispose(): void {
    this.listeners.clear();
  }
}

export class Uri {
  private constructor(
    readonly scheme: string,
    readonly path: string,
    readonly query = '',
  ) {}
  static from(c: { scheme: string; path?: string; query?: string }): Uri {
    return new Uri(c.scheme, c.path ?? '', c.query ?? '');
  }
  static file(p: string): Uri {
    return new Uri('file', p);
  }
  get fsPath(): string {
    return this.path;
  }
  toString(): string {
    return `${this.scheme}:${this.path}${this.query ? `?${this.query}` : ''}`;
  }
}

export class ThemeIcon {
  constructor(readonly id: string) {}
}

export class ThemeColor {
  constructor(readonly id: string) {}
}

export enum TreeItemCollapsibleState {
  None = 0,
  Collapsed = 1,
  Expanded = 2,
}

export class TreeItem {
  id?: string;
  description?: string;
  tooltip?: string;
  iconPath?: ThemeIcon;
  contextValue?: string;
  command?: { command: string; title: string; arguments?: unknown[] };
  constructor(
    readonly label: string,
    readonly collapsibleState: TreeItemCollapsibleState = TreeItemCollapsibleState.None,
  ) {}
}

export enum StatusBarAlignment {
  Left = 1,
  Right = 2,
}

export enum ViewColumn {
  Beside = -2,
  Active = -1,
  One = 1,
}

export enum ProgressLocation {
  SourceControl = 1,
  Window = 10,
  Notification = 15,
}

/** A selection as offsets into the document's text (the double's own representation). */
export class Selection {
  constructor(
    readonly start: number,
    readonly end: number,
  ) {}
  get isEmpty(): boolean {
    return this.start === this.end;
  }
}

export class TextDocument {
  constructor(
    readonly uri: Uri,
    private readonly text: string,
    /** As VS Code: a provider's document is plain text until a language is set. */
    readonly languageId = 'plaintext',
  ) {}
  getText(range?: Selection): string {
    return range ? this.text.slice(range.start, range.end) : this.text;
  }
}

export class CancellationTokenSource {
  private readonly cancelled = new EventEmitter<void>();
  readonly token = {
    isCancellationRequested: false,
    onCancellationRequested: this.cancelled.event,
  };
  cancel(): void {
    this.token.isCancellationRequested = true;
    this.cancelled.fire();
  }
}

// ---- What the extension asked for ----------------------------------------------------------

export type Level = 'info' | 'warning' | 'error';

export interface Message {
  level: Level;
  text: string;
  actions: string[];
  /** Shown as a modal dialog (`{ modal: true }` before the actions, as VS Code takes it). */
  modal?: true;
  /** The action the (simulated) user picked, once answered. */
  picked?: string;
}

/** VS Code's message functions take an options object (`{ modal }`) first, or actions only. */
type MessageArgs = (string | { modal?: boolean })[];

export interface QuickPickItem {
  label: string;
  description?: string;
  detail?: string;
  [key: string]: unknown;
}

export interface QuickPickOptions {
  title?: string;
  placeHolder?: string;
  [key: string]: unknown;
}

export interface InputBoxOptions {
  title?: string;
  prompt?: string;
  placeHolder?: string;
  value?: string;
  [key: string]: unknown;
}

/** A terminal the extension created; the test plays the person using it. */
export class Terminal {
  /** Everything the pseudoterminal wrote, as VS Code's terminal would receive it. */
  output = '';
  /** Set when the pseudoterminal closed the terminal (its exit code, if it gave one). */
  closedBy: { code: number | void } | null = null;
  /** Set when the user closed it (dispose). */
  disposed = false;
  readonly name: string;
  readonly pty: Pseudoterminal;

  constructor(options: { name: string; pty: Pseudoterminal }) {
    this.name = options.name;
    this.pty = options.pty;
    this.pty.onDidWrite((d) => (this.output += d));
    this.pty.onDidClose?.((code) => {
      this.closedBy = { code };
      editor.activeTerminal = editor.activeTerminal === this ? undefined : editor.activeTerminal;
      window.closedTerminal.fire(this);
    });
    // VS Code opens the pseudoterminal once the terminal is ready, with its size.
    setImmediate(() => this.pty.open({ columns: 80, rows: 24 }));
  }
  show(): void {
    editor.activeTerminal = this;
    editor.shownTerminals.push(this);
    window.activeTerminalChanged.fire(this);
  }
  /** The person types. */
  type(data: string): void {
    this.pty.handleInput?.(data);
  }
  /** The person resizes the panel. */
  resize(columns: number, rows: number): void {
    this.pty.setDimensions?.({ columns, rows });
  }
  /** The person closes the terminal (the trash can): VS Code calls the pseudoterminal's close(). */
  dispose(): void {
    if (this.disposed) return;
    this.disposed = true;
    this.pty.close();
    if (editor.activeTerminal === this) editor.activeTerminal = undefined;
    window.closedTerminal.fire(this);
  }
}

export interface TerminalDimensions {
  columns: number;
  rows: number;
}

export interface Pseudoterminal {
  onDidWrite: Event<string>;
  onDidClose?: Event<number | void>;
  open(dimensions: TerminalDimensions | undefined): void;
  close(): void;
  handleInput?(data: string): void;
  setDimensions?(dimensions: TerminalDimensions): void;
}

export interface StatusBarItem {
  name?: string;
  text: string;
  tooltip?: string;
  command?: string;
  backgroundColor?: ThemeColor;
  visible: boolean;
  disposed: boolean;
  show(): void;
  hide(): void;
  dispose(): void;
}

export interface TreeDataProvider<T> {
  getChildren(node?: T): Promise<T[]> | T[];
  getTreeItem(node: T): TreeItem;
  onDidChangeTreeData?: Event<T | undefined>;
}

interface TextDocumentContentProvider {
  provideTextDocumentContent(uri: Uri): Promise<string> | string;
}

/** The editor as the tests see it: what was asked of it, and how the user answers. */
export const editor = {
  messages: [] as Message[],
  /** showTextDocument calls: which document, where. */
  shownDocuments: [] as { document: TextDocument; viewColumn?: ViewColumn; text: string }[],
  terminals: [] as Terminal[],
  shownTerminals: [] as Terminal[],
  activeTerminal: undefined as Terminal | undefined,
  statusBarItems: [] as StatusBarItem[],
  treeProviders: new Map<string, TreeDataProvider<unknown>>(),
  /** Tree views by id; `visible` as the test sets it before activation. */
  viewVisible: false,
  progress: [] as { title: string; cancel: () => void; done: boolean }[],
  commands: new Map<string, (...args: unknown[]) => unknown>(),
  /** Commands run (by the extension or a test) that no one registered, e.g. `clippy.sessions.focus`. */
  foreignCommands: [] as string[],
  /** The same, with their arguments (`vscode.changes` and its resources, say). */
  foreignCommandCalls: [] as { id: string; args: unknown[] }[],
  /** Context keys as `setContext` left them (the `when` and `enablement` clauses read them). */
  context: new Map<string, unknown>(),
  /** URLs handed to `env.openExternal`, exactly as given; `openExternalResult` is its answer. */
  openedExternal: [] as unknown[],
  openExternalResult: true,
  settings: {} as Record<string, unknown>,
  workspaceFolders: [] as string[],
  activeTextEditor: undefined as
    { document: TextDocument; selections: Selection[]; selection: Selection } | undefined,
  /** How the simulated user answers; each defaults to dismissing. */
  answers: {
    message: (_m: Message): string | undefined => undefined,
    quickPick: (
      _items: QuickPickItem[],
      _placeHolder: string,
      _options?: QuickPickOptions,
    ): QuickPickItem | undefined => undefined,
    inputBox: (_prompt: string, _options?: InputBoxOptions): string | undefined => undefined,
  },
  contentProviders: new Map<string, TextDocumentContentProvider>(),
  configurationChanged: new EventEmitter<{ affectsConfiguration(s: string): boolean }>(),

  /** Forgets everything asked so far (between tests); providers and commands stay registered. */
  clearRecords(): void {
    this.messages.length = 0;
    this.shownDocuments.length = 0;
    this.shownTerminals.length = 0;
    this.progress.length = 0;
    this.foreignCommands.length = 0;
    this.foreignCommandCalls.length = 0;
    this.openedExternal.length = 0;
  },

  /** Puts `text` in the active editor with `selected` (its first occurrence) selected. */
  openEditor(text: string, selected = '', file = '/home/user/file.txt'): void {
    const start = selected ? text.indexOf(selected) : 0;
    if (start < 0) throw new Error(`'${selected}' is not in the text`);
    const sel = new Selection(start, start + selected.length);
    this.activeTextEditor = {
      document: new TextDocument(Uri.file(file), text),
      selections: [sel],
      selection: sel,
    };
  },
};

function message(level: Level, text: string, args: MessageArgs): Promise<string | undefined> {
  const actions = args.filter((a): a is string => typeof a === 'string');
  const modal = args.some((a) => typeof a === 'object' && a.modal === true);
  const m: Message = { level, text, actions, ...(modal ? { modal: true as const } : {}) };
  editor.messages.push(m);
  const picked = editor.answers.message(m);
  if (picked !== undefined && !actions.includes(picked)) {
    throw new Error(`the test picked '${picked}', not an action of: ${text}`);
  }
  m.picked = picked;
  return Promise.resolve(picked);
}

// ---- The API namespaces ----------------------------------------------------------------------

export const window = {
  closedTerminal: new EventEmitter<Terminal>(),
  activeTerminalChanged: new EventEmitter<Terminal | undefined>(),
  get onDidChangeActiveTerminal(): Event<Terminal | undefined> {
    return this.activeTerminalChanged.event;
  },
  /** Whether the VS Code window has focus (a test changes it with `focusWindow`). */
  windowState: { focused: true },
  windowStateChanged: new EventEmitter<{ focused: boolean }>(),
  get onDidChangeWindowState(): Event<{ focused: boolean }> {
    return this.windowStateChanged.event;
  },
  get state(): { focused: boolean } {
    return this.windowState;
  },
  /** The person switches to or away from the VS Code window. */
  focusWindow(focused: boolean): void {
    this.windowState = { focused };
    this.windowStateChanged.fire(this.windowState);
  },
  get onDidCloseTerminal(): Event<Terminal> {
    return this.closedTerminal.event;
  },
  get activeTerminal(): Terminal | undefined {
    return editor.activeTerminal;
  },
  get activeTextEditor() {
    return editor.activeTextEditor;
  },
  showInformationMessage: (text: string, ...args: MessageArgs) => message('info', text, args),
  showWarningMessage: (text: string, ...args: MessageArgs) => message('warning', text, args),
  showErrorMessage: (text: string, ...args: MessageArgs) => message('error', text, args),
  async showQuickPick(items: QuickPickItem[], options: QuickPickOptions = {}) {
    return editor.answers.quickPick(items, options.placeHolder ?? '', options);
  },
  async showInputBox(options: InputBoxOptions = {}) {
    return editor.answers.inputBox(options.prompt ?? '', options);
  },
  async showWorkspaceFolderPick() {
    const f = editor.workspaceFolders[0];
    return f ? { uri: Uri.file(f), name: path.basename(f), index: 0 } : undefined;
  },
  createStatusBarItem(): StatusBarItem {
    const item: StatusBarItem = {
      text: '',
      visible: false,
      disposed: false,
      show() {
        item.visible = true;
      },
      hide() {
        item.visible = false;
      },
      dispose() {
        item.disposed = true;
        item.visible = false;
      },
    };
    editor.statusBarItems.push(item);
    return item;
  },
  createTreeView<T>(id: string, options: { treeDataProvider: TreeDataProvider<T> }) {
    editor.treeProviders.set(id, options.treeDataProvider as TreeDataProvider<unknown>);
    const visibility = new EventEmitter<{ visible: boolean }>();
    return {
      visible: editor.viewVisible,
      onDidChangeVisibility: visibility.event,
      dispose: () => editor.treeProviders.delete(id),
    };
  },
  createTerminal(options: { name: string; pty: Pseudoterminal }): Terminal {
    const t = new Terminal(options);
    editor.terminals.push(t);
    return t;
  },
  async showTextDocument(document: TextDocument, options: { viewColumn?: ViewColumn } = {}) {
    editor.shownDocuments.push({
      document,
      ...(options.viewColumn !== undefined ? { viewColumn: options.viewColumn } : {}),
      text: document.getText(),
    });
    return { document };
  },
  async withProgress<R>(
    options: { title?: string },
    task: (
      progress: { report(v: { message?: string }): void },
      token: CancellationTokenSource['token'],
    ) => Promise<R>,
  ): Promise<R> {
    const source = new CancellationTokenSource();
    const entry = { title: options.title ?? '', cancel: () => source.cancel(), done: false };
    editor.progress.push(entry);
    try {
      return await task({ report: () => {} }, source.token);
    } finally {
      entry.done = true;
    }
  },
};

export const workspace = {
  getConfiguration(section: string) {
    return {
      get<T>(key: string): T | undefined {
        return editor.settings[`${section}.${key}`] as T | undefined;
      },
    };
  },
  get workspaceFolders() {
    return editor.workspaceFolders.map((f, index) => ({
      uri: Uri.file(f),
      name: path.basename(f),
      index,
    }));
  },
  get onDidChangeConfiguration() {
    return editor.configurationChanged.event;
  },
  registerTextDocumentContentProvider(scheme: string, provider: TextDocumentContentProvider) {
    editor.contentProviders.set(scheme, provider);
    return new Disposable(() => editor.contentProviders.delete(scheme));
  },
  /** As VS Code: a provider's scheme asks the provider; a file is read from disk. */
  async openTextDocument(uri: Uri): Promise<TextDocument> {
    const provider = editor.contentProviders.get(uri.scheme);
    if (provider) return new TextDocument(uri, await provider.provideTextDocumentContent(uri));
    if (uri.scheme === 'file') return new TextDocument(uri, fs.readFileSync(uri.fsPath, 'utf8'));
    throw new Error(`cannot open ${uri.toString()}: no provider for '${uri.scheme}'`);
  },
};

export const languages = {
  /** As VS Code: the same document in another language (its text unchanged). */
  async setTextDocumentLanguage(document: TextDocument, languageId: string): Promise<TextDocument> {
    return new TextDocument(document.uri, document.getText(), languageId);
  },
};

export const commands = {
  registerCommand(id: string, fn: (...args: unknown[]) => unknown): Disposable {
    if (editor.commands.has(id)) throw new Error(`command '${id}' already exists`);
    editor.commands.set(id, fn);
    return new Disposable(() => editor.commands.delete(id));
  },
  async executeCommand(id: string, ...args: unknown[]): Promise<unknown> {
    if (id === 'setContext') {
      editor.context.set(args[0] as string, args[1]);
      return undefined;
    }
    const fn = editor.commands.get(id);
    if (!fn) {
      editor.foreignCommands.push(id);
      editor.foreignCommandCalls.push({ id, args });
      return undefined;
    }
    return fn(...args);
  },
};

export const env = {
  /** Set in a remote window (e.g. `ssh-remote`); undefined in a local one. */
  remoteName: undefined as string | undefined,
  clipboard: {
    text: '',
    async writeText(text: string): Promise<void> {
      this.text = text;
    },
    async readText(): Promise<string> {
      return this.text;
    },
  },
  /** As VS Code: hands the link to the system's browser; resolves whether it was opened. */
  async openExternal(target: unknown): Promise<boolean> {
    editor.openedExternal.push(target);
    return editor.openExternalResult;
  },
};

/** An extension context of the double: what activate() gets. */
export function extensionContext(): { subscriptions: { dispose(): unknown }[] } {
  return { subscriptions: [] };
}

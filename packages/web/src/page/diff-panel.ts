import type { DiffFile, DiffHunk, DiffStatus, DiffTotals, WorktreeInfo } from '@clippy/protocol';
import { el } from './format.js';
import type { Rpc } from './rpc.js';

/** The `diff` answer, as the page reads it (detail `patch`). */
interface DiffResult {
  worktree: WorktreeInfo;
  base: string;
  files: DiffFile[];
  totals: DiffTotals;
  truncated: boolean;
}

/**
 * Lines drawn when the panel opens: files past them stay closed and draw when opened, so a
 * diff of thousands of lines does not hold the page up (the daemon sends at most 8 MiB).
 */
const OPEN_LINES_LIMIT = 3000;

/** git's letter for each status, as `git diff --name-status` shows it. */
const STATUS_LETTER: Record<DiffStatus, string> = {
  added: 'A',
  modified: 'M',
  deleted: 'D',
  renamed: 'R',
  copied: 'C',
  type_changed: 'T',
};

/** A diff line's class: added, removed, context, or git's "\ No newline at end of file". */
function lineKind(line: string): 'add' | 'del' | 'ctx' | 'note' {
  switch (line[0]) {
    case '+':
      return 'add';
    case '-':
      return 'del';
    case '\\':
      return 'note';
    default:
      return 'ctx';
  }
}

function shownPath(f: DiffFile): string {
  return f.old_path !== undefined ? `${f.old_path} → ${f.path}` : f.path;
}

/** `+12 −3` (a real minus sign, as `clippy ls` shows it), or `binary`. */
function counts(f: DiffFile): string {
  if (f.binary) return 'binary';
  return `+${f.added ?? 0} \u2212${f.removed ?? 0}`;
}

/** One hunk: its `@@` line, then its lines with the base's and the worktree's line numbers. */
function renderHunk(h: DiffHunk): HTMLElement {
  const box = el('div', 'diff-hunk');
  box.append(el('div', 'diff-hunk-header', h.header));
  let oldLine = h.old_start;
  let newLine = h.new_start;
  for (const line of h.lines) {
    const kind = lineKind(line);
    const row = el('div', `diff-line ${kind}`);
    const oldNo = kind === 'ctx' || kind === 'del' ? String(oldLine++) : '';
    const newNo = kind === 'ctx' || kind === 'add' ? String(newLine++) : '';
    row.append(
      el('span', 'diff-no', oldNo),
      el('span', 'diff-no', newNo),
      el('span', 'diff-text', line || ' '),
    );
    box.append(row);
  }
  return box;
}

/** A file's body: its hunks, or why there are none. */
function renderFileBody(f: DiffFile, truncated: boolean, name: string): HTMLElement[] {
  if (f.binary) return [el('p', 'diff-note', 'Binary file: no lines to show.')];
  if (!f.hunks) {
    return [
      el(
        'p',
        'diff-note',
        truncated
          ? `Left out to keep the answer small: clippy diff ${name} ${f.path}`
          : 'No line changes (a mode or a name only).',
      ),
    ];
  }
  if (f.hunks.length === 0)
    return [el('p', 'diff-note', 'No line changes (a mode or a name only).')];
  return f.hunks.map(renderHunk);
}

const lineCount = (f: DiffFile): number =>
  (f.hunks ?? []).reduce((n, h) => n + h.lines.length + 1, 0);

/**
 * A session's changes in its worktree (`clippy diff`): a dialog over the session view with the
 * changed files first (status, path, counts; each a link to its section), then each file's
 * hunks, added lines green and removed ones red. It stands alone: the session view only opens
 * it, and it brings its own styles (static/diff.css).
 */
export class DiffPanel {
  readonly dialog = el('dialog', 'diff-panel');
  private readonly summary = el('p', 'diff-summary');
  private readonly body = el('div', 'diff-body');
  private loading = 0;
  /** Files past the lines drawn at once that the user opened (by path). */
  private readonly openedByHand = new Set<string>();

  constructor(
    private readonly rpc: Rpc,
    private readonly session: string,
    private readonly name: string,
  ) {
    const refresh = el('button', 'diff-refresh', 'Refresh');
    refresh.type = 'button';
    refresh.addEventListener('click', () => void this.load());
    const close = el('button', 'diff-close', 'Close');
    close.type = 'button';
    close.addEventListener('click', () => this.dialog.close());
    const head = el('header', 'diff-head');
    head.append(el('h3', '', `Changes of ${name}`), this.summary, refresh, close);
    this.dialog.append(head, this.body);
  }

  /** Shows the panel (modal: Esc closes it) and reads the diff as it is now. */
  async open(parent: HTMLElement): Promise<void> {
    if (!this.dialog.isConnected) parent.append(this.dialog);
    if (!this.dialog.open) this.dialog.showModal();
    await this.load();
  }

  private async load(): Promise<void> {
    const mine = ++this.loading;
    this.dialog.dataset.state = 'loading';
    this.summary.textContent = 'reading the diff…';
    try {
      const result = await this.rpc.request<DiffResult>('diff', {
        session: this.session,
        detail: 'patch',
      });
      if (mine !== this.loading) return;
      this.render(result);
      this.dialog.dataset.state = 'shown';
    } catch (err) {
      if (mine !== this.loading) return;
      this.summary.textContent = '';
      this.body.replaceChildren(
        el('p', 'diff-error', `Cannot show the diff of ${this.name}: ${(err as Error).message}`),
      );
      this.dialog.dataset.state = 'error';
    }
  }

  private render(r: DiffResult): void {
    const t = r.totals;
    this.summary.textContent =
      `${r.worktree.branch} against ${r.base.slice(0, 10)} · ` +
      `${t.files} file${t.files === 1 ? '' : 's'} · +${t.added} \u2212${t.removed}`;
    if (r.files.length === 0) {
      this.body.replaceChildren(
        el('p', 'diff-note', `No changes: ${r.worktree.path} is as its base left it.`),
      );
      return;
    }
    const list = el('ol', 'diff-files');
    const sections: HTMLElement[] = [];
    let drawn = 0;
    r.files.forEach((f, i) => {
      const id = `diff-file-${i}`;
      const item = el('li', `diff-file-item ${f.status}`);
      item.dataset.path = f.path;
      const link = el('a', 'diff-path', shownPath(f));
      link.href = `#${id}`;
      // The page's own address holds the session: a link must not change it.
      link.addEventListener('click', (e) => {
        e.preventDefault();
        const section = this.body.querySelector<HTMLDetailsElement>(`#${id}`);
        if (!section) return;
        section.open = true;
        section.scrollIntoView({ block: 'start' });
      });
      item.append(
        el('span', `diff-status ${f.status}`, STATUS_LETTER[f.status]),
        link,
        el('span', 'diff-counts', counts(f)),
      );
      list.append(item);

      const section = el('details', `diff-file ${f.status}`);
      section.id = id;
      section.dataset.path = f.path;
      const title = el('summary', 'diff-file-title');
      title.append(
        el('span', `diff-status ${f.status}`, STATUS_LETTER[f.status]),
        el('span', 'diff-path', shownPath(f)),
        el('span', 'diff-counts', counts(f)),
      );
      section.append(title);
      const size = lineCount(f);
      const draw = () => section.append(...renderFileBody(f, r.truncated, this.name));
      if (drawn + size <= OPEN_LINES_LIMIT || drawn === 0) {
        drawn += size;
        section.open = true;
        draw();
      } else {
        // A file the user opened stays open when the diff is read again (Refresh).
        if (this.openedByHand.has(f.path)) {
          section.open = true;
          draw();
        } else section.addEventListener('toggle', draw, { once: true });
        section.addEventListener('toggle', () => {
          if (section.open) this.openedByHand.add(f.path);
          else this.openedByHand.delete(f.path);
        });
      }
      sections.push(section);
    });
    const parts: HTMLElement[] = [list];
    if (r.truncated) {
      parts.push(
        el(
          'p',
          'diff-note',
          `The diff passed 8 MiB: the later files' hunks were left out (their counts are here). ` +
            `clippy diff ${this.name} PATH shows one file.`,
        ),
      );
    }
    this.body.replaceChildren(...parts, ...sections);
  }

  dispose(): void {
    this.loading++;
    if (this.dialog.open) this.dialog.close();
    this.dialog.remove();
  }
}

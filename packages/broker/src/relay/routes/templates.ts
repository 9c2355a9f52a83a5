import fs from 'node:fs';
import { homedir } from 'node:os';
import path from 'node:path';
import Mustache from 'mustache';
import { configDir } from '@clippy/protocol';
import { HandlerError } from '../../errors.js';

// Route templates: what a route injects, made from the turn(s) it forwards. Mustache (logic-
// less, well kept) renders them with HTML escaping off: a turn's `<`, `&` and quotes reach the
// target as they were written.

/** What a template can use. */
export interface TemplateView {
  /** The forwarded turn's text (fan-in: every turn, joined with blank lines). */
  text: string;
  prompt: string;
  /** The source session's name. */
  source: string;
  turn_id: string;
  /** The loop's round (0 outside loops). */
  round: number;
  /** Fan-in: each source's turn (and its diff, when the template shows one). */
  turns: {
    source: string;
    text: string;
    prompt: string;
    turn_id: string;
    diff?: string;
    diff_stat?: string;
  }[];
  /** `--wrap TEXT`. */
  wrap: string;
  /** The source's worktree diff when its turn completed, capped (fan-in: each source's in turn). */
  diff: string;
  /** Its `git diff --stat`. */
  diff_stat: string;
}

/** A session's diff as templates show it (broker/src/worktrees). */
export interface TemplateDiff {
  diff: string;
  diff_stat: string;
}

export const BUILTIN_TEMPLATES: Readonly<Record<string, string>> = {
  plain: '{{text}}',
  review:
    'Review this work from {{source}} ({{turn_id}}). If it is ready, answer LGTM; otherwise list what must change.\n\n{{text}}',
  implement:
    'The review from {{source}} ({{turn_id}}, round {{round}}) is below. Make the changes it asks for, then say what you changed.\n\n{{text}}',
  'review-diff':
    'Review the change {{source}} made ({{turn_id}}). If it is ready, answer LGTM; otherwise list what must change.\n\n' +
    '{{#diff_stat}}Its diff against where it started:\n\n{{diff_stat}}\n\n{{diff}}\n\n{{/diff_stat}}' +
    '{{^diff_stat}}{{source}} has changed no file yet.\n\n{{/diff_stat}}' +
    'What {{source}} said:\n\n{{text}}',
  synthesize:
    'Combine these answers into one, keeping what each gets right and saying where they disagree.\n\n{{#turns}}## {{source}} ({{turn_id}})\n\n{{text}}\n\n{{/turns}}',
};

/** `--wrap TEXT`: the line first, then the turn. */
export const WRAP_TEMPLATE = '{{wrap}}\n\n{{text}}';

/** Template names are file names in the templates dir: no paths. */
const TEMPLATE_NAME = /^[A-Za-z0-9][A-Za-z0-9._-]*$/u;
/** Endings tried after the bare name in the templates dir. */
const TEMPLATE_EXTENSIONS = ['', '.mustache', '.md', '.txt'];
/** A template larger than this is refused (it is rendered for every forwarded turn). */
const MAX_TEMPLATE_BYTES = 64 * 1024;

/** `$XDG_CONFIG_HOME/clippy/templates/`. */
export function templatesDir(env: Record<string, string | undefined>): string {
  return path.join(configDir(env, env.HOME || homedir()), 'templates');
}

export interface Template {
  name: string;
  source: string;
}

/** A built-in by name, else a user file; checked by parsing. Throws `invalid_template`. */
export function resolveTemplate(name: string, env: Record<string, string | undefined>): Template {
  const builtin = BUILTIN_TEMPLATES[name];
  let source = builtin;
  if (source === undefined) {
    if (!TEMPLATE_NAME.test(name)) {
      throw new HandlerError('invalid_template', `template '${name}' is not a template name`);
    }
    const dir = templatesDir(env);
    for (const ext of TEMPLATE_EXTENSIONS) {
      const file = path.join(dir, `${name}${ext}`);
      try {
        if (fs.statSync(file).size > MAX_TEMPLATE_BYTES) {
          throw new HandlerError('invalid_template', `template file ${file} is over 64 KiB`);
        }
        source = fs.readFileSync(file, 'utf8');
        break;
      } catch (err) {
        if (err instanceof HandlerError) throw err;
      }
    }
    if (source === undefined) {
      throw new HandlerError(
        'invalid_template',
        `no template '${name}': built in are ${Object.keys(BUILTIN_TEMPLATES).join(', ')}; yours go in ${dir}/`,
      );
    }
  }
  return checked(name, source);
}

/** A template made from text (`--wrap`), checked. */
export function checked(name: string, source: string): Template {
  try {
    Mustache.parse(source);
  } catch (err) {
    throw new HandlerError('invalid_template', `template '${name}': ${(err as Error).message}`);
  }
  return { name, source };
}

export function render(t: Template, view: TemplateView): string {
  return Mustache.render(t.source, view, {}, { escape: (s: string) => s });
}

/** Names a template uses (`{{name}}`, `{{#name}}`, …), its sections' insides included. */
function namesIn(tokens: unknown[], into = new Set<string>()): Set<string> {
  for (const token of tokens as [string, string, number, number, unknown[]?][]) {
    if (token[0] !== 'text') into.add(token[1]);
    if (Array.isArray(token[4])) namesIn(token[4], into);
  }
  return into;
}

/** Whether a template shows a diff (`{{diff}}`, `{{diff_stat}}`): then its sources need a worktree. */
export function usesDiff(t: Template): boolean {
  const names = namesIn(Mustache.parse(t.source) as unknown[]);
  return names.has('diff') || names.has('diff_stat');
}

/**
 * A route's message. A template that shows a diff renders once its sources' diffs are read:
 * they are asked for now, so they are the diffs of the moment the turn completed.
 */
export function renderWithDiffs(
  t: Template,
  view: Omit<TemplateView, 'diff' | 'diff_stat'>,
  sources: readonly string[],
  diffOf: ((session: string) => Promise<TemplateDiff> | null) | undefined,
): string | Promise<string> {
  if (!usesDiff(t) || !diffOf) return render(t, { ...view, diff: '', diff_stat: '' });
  return Promise.all(sources.map((s) => diffOf(s))).then((diffs) => {
    const shown = diffs.filter((d): d is TemplateDiff => d !== null);
    return render(t, {
      ...view,
      diff: shown
        .map((d) => d.diff)
        .filter(Boolean)
        .join('\n\n'),
      diff_stat: shown
        .map((d) => d.diff_stat)
        .filter(Boolean)
        .join('\n\n'),
      turns: view.turns.map((turn, i) => ({
        ...turn,
        diff: diffs[i]?.diff ?? '',
        diff_stat: diffs[i]?.diff_stat ?? '',
      })),
    });
  });
}

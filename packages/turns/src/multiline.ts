import type { MultilineSetting, Preset } from './preset-types.js';

/** A preset's `multiline` with its defaults filled in (see MultilineSetting). */
export type MultilineForm =
  | { mode: 'lines' }
  | { mode: 'join'; separator: string }
  | { mode: 'block'; open: string; close: string }
  | { mode: 'continuation'; lineEnd: string };

/** `join`'s default: the line breaks become spaces, as a reader of the text would join them. */
const DEFAULT_SEPARATOR = ' ';
/** `continuation`'s default: a backslash before the newline continues the line (sh, bash, zsh, fish, Python). */
const DEFAULT_LINE_END = '\\';

/** A text that the preset's form cannot carry (it holds the block's closing line). */
export class MultilineError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'MultilineError';
  }
}

/** The form a preset gives multi-line text (default `lines`: typed as it is). */
export function multilineForm(preset: Pick<Preset, 'multiline'> | null | undefined): MultilineForm {
  const setting: MultilineSetting = preset?.multiline ?? 'lines';
  const given = typeof setting === 'string' ? { mode: setting } : setting;
  switch (given.mode) {
    case 'lines':
      return { mode: 'lines' };
    case 'join':
      return {
        mode: 'join',
        separator: ('separator' in given ? given.separator : undefined) ?? DEFAULT_SEPARATOR,
      };
    case 'continuation':
      return {
        mode: 'continuation',
        lineEnd: ('lineEnd' in given ? given.lineEnd : undefined) ?? DEFAULT_LINE_END,
      };
    case 'block':
      return { mode: 'block', open: given.open, close: given.close };
  }
}

/**
 * `text` as a program without bracketed paste is to be given it, by the preset's form: `lines`
 * leaves it as it is; the other forms make a text of several lines one submission (its final
 * line breaks dropped: they would submit empty lines). A text of one line is left as it is.
 * Throws MultilineError when a line of the text is the block's closing line (the program
 * would end the block there and take the rest as further submissions).
 */
export function applyMultiline(text: string, form: MultilineForm): string {
  if (form.mode === 'lines') return text;
  const lines = text.replace(/(?:\r\n?|\n)+$/u, '').split(/\r\n?|\n/u);
  if (lines.length < 2) return text;
  switch (form.mode) {
    case 'join':
      return lines.filter((line) => line.trim() !== '').join(form.separator);
    case 'continuation':
      return lines.map((line, i) => (i < lines.length - 1 ? line + form.lineEnd : line)).join('\n');
    case 'block': {
      const at = lines.indexOf(form.close);
      if (at >= 0) {
        throw new MultilineError(
          `line ${at + 1} of the text is "${form.close}", the line that ends the program's block: it would end the text there and submit the rest line by line`,
        );
      }
      return [form.open, ...lines, form.close].join('\n');
    }
  }
}

/**
 * The text a submission in the preset's form carried, as it was before applyMultiline: the
 * block's opening and closing lines and the continuations' line ends are the form's, not the
 * user's words, so a turn's recorded input leaves them out. Anything else is left as it is.
 */
export function unwrapMultiline(input: string, form: MultilineForm): string {
  const lines = input.split('\n');
  if (lines.length < 2) return input;
  switch (form.mode) {
    case 'block': {
      // The program opens the block at its opening line (typed by the user or by clippy alike);
      // the closing line may not be in the input (it can reach a turn that is already answering).
      if (lines[0] !== form.open) return input;
      const end = lines[lines.length - 1] === form.close ? -1 : lines.length;
      return lines.slice(1, end).join('\n');
    }
    case 'continuation': {
      const body = lines.slice(0, -1);
      return form.lineEnd !== '' && body.every((line) => line.endsWith(form.lineEnd))
        ? [
            ...body.map((line) => line.slice(0, -form.lineEnd.length)),
            lines[lines.length - 1],
          ].join('\n')
        : input;
    }
    default:
      return input;
  }
}

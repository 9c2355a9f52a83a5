import { normEcho, typedForms } from './extract.js';
import { compact } from './screen-lines.js';

/**
 * What TUIs put in their input box instead of a long paste: Claude Code `[Pasted text #1 +20
 * lines]`, Codex `[Pasted Content 1234 chars]`, Gemini CLI `[Pasted Text: 20 lines]`, OpenCode
 * `[Pasted ~9 lines]`.
 */
const PASTE_PLACEHOLDER = /\[Pasted (?:text\b|content\b|~\d+ lines?\])/iu;

/**
 * Whether the input line still holds the submitted text (or the placeholder of a paste): the
 * agent has not taken the submit yet, whatever else its screen shows. A placeholder hint
 * ("Type your message…") or text typed since is not the submitted text.
 */
export function inputHolds(inputLine: string, submitted: string): boolean {
  const shown = compact(normEcho(inputLine));
  if (shown === '') return false;
  if (PASTE_PLACEHOLDER.test(inputLine)) return true;
  const want = typedForms(submitted).whole;
  return want !== '' && want.startsWith(shown.slice(0, want.length));
}

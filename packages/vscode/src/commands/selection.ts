import * as vscode from 'vscode';
import { UserError } from '../errors.js';

/** The editor's selected text (several selections joined by newlines); an error when empty. */
export function selectedText(what: string): string {
  const editor = vscode.window.activeTextEditor;
  if (!editor) throw new UserError(`nothing to ${what}: no editor is active`);
  const parts = editor.selections.filter((s) => !s.isEmpty).map((s) => editor.document.getText(s));
  // A selection of whole lines ends with the last one's newline: a line end, not content.
  const text = parts.join('\n').replace(/\r?\n$/, '');
  if (text.trim() === '') {
    throw new UserError(`nothing to ${what}: the selection is empty`);
  }
  return text;
}

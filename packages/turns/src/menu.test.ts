// The question and choices read from blocked screens: the repository's labelled screens of real
// agents (test/screens), the real screens of ../shared/corpus (skipped when absent) and the
// forms reference/agent-screens.md lists.
import fs from 'node:fs';
import path from 'node:path';
import { corpusDir } from '@clippy/testkit/paths';
import { describe, expect, it } from 'vitest';
import { CLAUDE_BUSY, CLAUDE_DIALOG, CLAUDE_IDLE_AFTER_ANSWER } from './fixtures/screens.js';
import { readMenu, type Menu } from './menu.js';
import { SCREENS_DIR, screenCases } from './test-support/screen-cases.js';
import { sharedMissing } from '@clippy/testkit/requirements';

const screen = (file: string): string => fs.readFileSync(path.join(SCREENS_DIR, file), 'utf8');
const corpus = (...parts: string[]): string =>
  fs.readFileSync(path.join(corpusDir, ...parts), 'utf8');
const labels = (m: Menu | null) => m?.options.map((o) => o.label);
const keys = (m: Menu | null) => m?.options.map((o) => o.keys);

/** Blocked screens that ask for typed text, not a choice, or whose choices the paste cut off. */
const NO_CHOICES: Record<string, string> = {
  'codex-api-key': 'an API-key field',
  'gemini-api-key': 'an API-key field (the numbered tips above its box are not choices)',
  'copilot-blocked-folder-trust': 'the pasted screen ends above the choices',
  'qwen-connect-provider': 'a picker of unnumbered choices, each with a description line',
  'qwen-custom-provider': 'a picker of unnumbered choices, each with a description line',
  'opencode-select-model': 'a list to search, not a question',
  'opencode-commands-over-answer': 'a list to search, not a question',
};

describe('readMenu on the labelled screens (test/screens)', () => {
  for (const c of screenCases()) {
    const wants = c.state === 'blocked' && !(c.name in NO_CHOICES);
    it(`${c.name} (${c.state}): ${wants ? 'a question with choices' : 'no choices'}`, () => {
      const menu = readMenu(screen(c.file));
      if (!wants) {
        expect([c.name, menu]).toEqual([c.name, null]);
        return;
      }
      expect(menu!.options.length).toBeGreaterThanOrEqual(2);
      // Exactly one choice is where the cursor is, or (typed letters) none or one is the default.
      expect(menu!.options.filter((o) => o.selected).length).toBeLessThanOrEqual(1);
      for (const o of menu!.options) expect(o.keys.length).toBeGreaterThan(0);
    });
  }

  it("OpenCode's permission: choices side by side, Right to move from the first, its hints left out", () => {
    expect(readMenu(screen('opencode-approve-shell.txt'))).toEqual({
      question: '△ Permission required',
      detail: ['# Shell command', '$ touch approved.txt'],
      options: [
        { label: 'Allow once', keys: ['Enter'], selected: true },
        { label: 'Allow always', keys: ['Right', 'Enter'], selected: false },
        { label: 'Reject', keys: ['Right', 'Right', 'Enter'], selected: false },
      ],
      style: 'row',
      cancel: null,
    });
  });

  it("Codex's command approval: the question, the command as detail, arrows from the cursor", () => {
    const m = readMenu(screen('codex-approve-command.txt'));
    expect(m).toEqual({
      question: 'Would you like to run the following command?',
      detail: [
        'Environment: local',
        'Reason: Rebuild the project from scratch?',
        '$ rm -rf build && make',
      ],
      options: [
        { label: 'Yes, proceed (y)', keys: ['Enter'], selected: true },
        {
          label: "Yes, and don't ask again for commands that start with `rm -rf build` (p)",
          keys: ['Down', 'Enter'],
          selected: false,
        },
        {
          label: 'No, and tell Codex what to do differently (esc)',
          keys: ['Down', 'Down', 'Enter'],
          selected: false,
        },
      ],
      style: 'numbered',
      cancel: ['Esc'],
    });
  });

  it("Gemini's edit approval inside nested boxes: the diff is detail, the box edges are gone", () => {
    const m = readMenu(screen('gemini-approve-edit.txt'));
    expect(m?.question).toBe('Apply this change?');
    expect(m?.detail).toEqual(['1 # Notes', '2 Build with make.']);
    expect(labels(m)).toEqual([
      'Allow once',
      'Allow for this session',
      'Modify with external editor',
      'No, suggest changes (esc)',
    ]);
    expect(keys(m)?.[3]).toEqual(['Down', 'Down', 'Down', 'Enter']);
  });

  it("Gemini's radio list (● selected, ○ not) from a public thread", () => {
    const m = readMenu(screen('public/gemini-blocked-mcp-tool.txt'));
    expect(m).toMatchObject({
      style: 'radio',
      question: 'Allow execution of MCP tool "foo" from server "bar"?',
      cancel: ['Esc'],
    });
    expect(m?.options[0]).toEqual({ label: 'Yes, allow once', keys: ['Enter'], selected: true });
    expect(m?.options[3]).toEqual({
      label: 'No (esc)',
      keys: ['Down', 'Down', 'Down', 'Enter'],
      selected: false,
    });
  });

  it("Copilot's (y/n) question typed on its line, with the output above it as detail", () => {
    expect(readMenu(screen('public/copilot-blocked-paths-yn.txt'))).toEqual({
      question: 'Allow access to these paths?',
      detail: ['The following paths are outside the allowed directories:', '- C:\\TEMP\\err.log'],
      options: [
        { label: 'Yes', keys: ['y', 'Enter'], selected: false },
        { label: 'No', keys: ['n', 'Enter'], selected: false },
      ],
      style: 'letters',
      cancel: null,
    });
  });

  it("Claude Code's trust dialog: the question is the sentence that asks, the rest is detail", () => {
    const m = readMenu(screen('claude-trust-folder.txt'));
    expect(m?.question).toMatch(
      /^Quick safety check: Is this a project you created or one you trust\?/u,
    );
    expect(m?.detail[0]).toBe('Accessing workspace:');
    expect(labels(m)).toEqual(['Yes, I trust this folder', 'No, exit']);
    expect(keys(m)).toEqual([['Enter'], ['Down', 'Enter']]);
  });

  it("Codex's sign-in: the description under each choice is not a choice", () => {
    const m = readMenu(screen('codex-sign-in.txt'));
    expect(labels(m)).toEqual([
      'Sign in with ChatGPT',
      'Sign in with Device Code',
      'Sign in another way',
    ]);
    expect(m?.question).toBe('Choose how you want to use Codex.');
    expect(m?.cancel).toBeNull();
  });
});

describe('readMenu on the fixtures and constructed forms', () => {
  it('reads the fixture dialog, and nothing from idle or busy screens', () => {
    expect(readMenu(CLAUDE_DIALOG)).toEqual({
      question: 'Do you want to proceed?',
      detail: ['Bash command', 'rm -rf build'],
      options: [
        { label: 'Yes', keys: ['Enter'], selected: true },
        { label: 'No', keys: ['Down', 'Enter'], selected: false },
      ],
      style: 'numbered',
      cancel: ['Esc'],
    });
    expect(readMenu(CLAUDE_IDLE_AFTER_ANSWER)).toBeNull();
    expect(readMenu(CLAUDE_BUSY)).toBeNull();
    expect(readMenu('')).toBeNull();
  });

  it('moves up from a cursor below the wanted choice', () => {
    const m = readMenu([' Pick one', '   1. Red', '   2. Green', ' ❯ 3. Blue', '', ' Esc to exit']);
    expect(keys(m)).toEqual([['Up', 'Up', 'Enter'], ['Up', 'Enter'], ['Enter']]);
  });

  it('picks by number where no cursor is drawn', () => {
    const m = readMenu(['Choose a mode:', '1. Fast', '2. Careful']);
    expect(keys(m)).toEqual([['1'], ['2']]);
    expect(m?.options.every((o) => !o.selected)).toBe(true);
  });

  it('takes a run from 1 only, of at least two choices', () => {
    expect(readMenu(['Steps:', '1. only one'])).toBeNull();
    expect(readMenu(['Steps:', '2. two', '3. three'])).toBeNull();
  });

  it('reads the forms of reference/agent-screens.md: (Y)es/(N)o, [y/n], (y/n), [Y/n]', () => {
    const aider = readMenu([
      'app.py',
      "Add app.py to the chat? (Y)es/(N)o/(D)on't ask again [Yes]: ",
    ]);
    expect(aider).toEqual({
      question: 'Add app.py to the chat?',
      detail: ['app.py'],
      options: [
        { label: 'Yes', keys: ['y', 'Enter'], selected: true },
        { label: 'No', keys: ['n', 'Enter'], selected: false },
        { label: "Don't ask again", keys: ['d', 'Enter'], selected: false },
      ],
      style: 'letters',
      cancel: null,
    });
    expect(labels(readMenu(['allow command? [y/n]']))).toEqual(['Yes', 'No']);
    expect(readMenu(['Overwrite it? [Y/n]'])?.options.map((o) => o.selected)).toEqual([
      true,
      false,
    ]);
    // The choices alone on the last line: the question is the line above.
    expect(readMenu(['Delete 3 files?', '(y/n):'])?.question).toBe('Delete 3 files?');
  });
});

describe.skipIf(sharedMissing(corpusDir, 'the real-agent corpus') !== null)(
  'readMenu on the real screens of ../shared/corpus',
  () => {
    it('Claude Code 2.1.29 permission dialogs: question, command, three choices', () => {
      const bash = readMenu(corpus('claude-code-2.1.29', 'bash_permission_dialog.tui.txt'));
      expect(bash).toEqual({
        question: 'Do you want to proceed?',
        detail: [
          'Bash command',
          'touch /tmp/test_file.txt',
          'Create an empty file at /tmp/test_file.txt',
        ],
        options: [
          { label: 'Yes', keys: ['Enter'], selected: true },
          {
            label: 'Yes, and always allow access to tmp/ from this project',
            keys: ['Down', 'Enter'],
            selected: false,
          },
          { label: 'No', keys: ['Down', 'Down', 'Enter'], selected: false },
        ],
        style: 'numbered',
        cancel: ['Esc'],
      });
      const edit = readMenu(corpus('claude-code-2.1.29', 'edit_permission_dialog.tui.txt'));
      expect(edit?.question).toBe('Do you want to make this edit to test.txt?');
      expect(labels(edit)).toEqual([
        'Yes',
        'Yes, allow all edits during this session (shift+tab)',
        'No',
      ]);
    });

    it('Claude Code 2.1.29 with the cursor moved: arrows from where it is', () => {
      const m = readMenu(corpus('claude-code-2.1.29', 'thinking_dialog_disabled_selected.tui.txt'));
      expect(m?.options.map((o) => [o.selected, o.keys])).toEqual([
        [false, ['Up', 'Enter']],
        [true, ['Enter']],
      ]);
    });

    it("aider's question, as the screen showed it when aider asked", () => {
      const lines = corpus('agentapi', 'format', 'aider', 'multi-line-input', 'msg.txt').split(
        '\n',
      );
      const asked = lines.slice(0, lines.findIndex((l) => l.includes('(Y)es/(N)o')) + 1);
      const m = readMenu(asked);
      expect(m).toMatchObject({
        question: 'Add file to the chat?',
        detail: ['chat/src/components/ChatInterface.tsx'],
        style: 'letters',
      });
      expect(m?.options.map((o) => [o.label, o.keys[0], o.selected])).toEqual([
        ['Yes', 'y', true],
        ['No', 'n', false],
        ["Don't ask again", 'd', false],
      ]);
    });

    it('Codex with the cursor on the second choice, and Amazon Q letters', () => {
      const codex = readMenu(corpus('agentapi', 'format', 'codex', 'confirmation_box', 'msg.txt'));
      expect(codex?.options.map((o) => [o.label, o.keys])).toEqual([
        ['Allow Codex to work in this folder without asking for approval', ['Up', 'Enter']],
        ['Require approval of edits and commands', ['Enter']],
      ]);
      const q = readMenu(corpus('agentapi', 'format', 'amazonq', 'confirmation_box', 'msg.txt'));
      expect(q?.question).toBe(
        "Allow this action? Use 't' to trust (always allow) this tool for the session.",
      );
      expect(keys(q)).toEqual([
        ['y', 'Enter'],
        ['n', 'Enter'],
        ['t', 'Enter'],
      ]);
    });
  },
);

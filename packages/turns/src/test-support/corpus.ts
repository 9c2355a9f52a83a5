// Reading the shared corpus of real agent screens (../shared/corpus beside the repository) and
// the truth about each screen, decided by reading it. Used by corpus.test.ts and by
// scripts/corpus-report.ts; nothing here is copied from the corpus.
import fs from 'node:fs';
import path from 'node:path';
import { corpusDir } from '@clippy/testkit/paths';
import { stripAnsi } from '../ansi-stripper.js';
import { BUILTIN_PRESETS } from '../builtin-presets.js';
import { classifyScreen, type ScreenState } from '../classify.js';
import { echoEnd, extractAnswer, withoutBullets } from '../extract.js';
import { compilePreset } from '../presets.js';
import { firstMatch } from '../screen-lines.js';

/** The agents with a screen in agentapi's corpus that clippy has a preset for. */
export const CORPUS_AGENTS = ['claude', 'codex', 'gemini', 'aider', 'copilot'] as const;
export type CorpusAgent = (typeof CORPUS_AGENTS)[number];

export function readCorpus(...parts: string[]): string {
  return fs.readFileSync(path.join(corpusDir, ...parts), 'utf8');
}

export interface InitScreen {
  agent: CorpusAgent;
  file: string;
  ready: boolean;
  text: string;
}

/** agentapi's initialization screens: `ready*` must classify idle, `not_ready` must not. */
export function initScreens(): InitScreen[] {
  const out: InitScreen[] = [];
  for (const agent of CORPUS_AGENTS) {
    for (const kase of ['ready', 'not_ready']) {
      const dir = path.join(corpusDir, 'agentapi', 'initialization', agent, kase);
      for (const file of fs.readdirSync(dir).sort()) {
        out.push({
          agent,
          file: `${agent}/${kase}/${file}`,
          ready: kase === 'ready',
          text: fs.readFileSync(path.join(dir, file), 'utf8'),
        });
      }
    }
  }
  return out;
}

/**
 * The state of every Claude Code 2.1.29 screen, decided by reading it. Dialogs that wait for a
 * choice or a key (permissions, pickers, help, export, setup, trust) are blocked; an input box
 * with no spinner is idle (also while the user types or a slash menu is open); a spinner line
 * with "esc to interrupt" is busy; a suspended Claude shows none of its markers.
 */
export const CLAUDE_2_1_29_TRUTH: Record<string, ScreenState> = {
  after_response: 'idle',
  bash_permission_dialog: 'blocked',
  clear_after: 'busy',
  clear_before: 'idle',
  compact_after: 'idle',
  compact_before: 'idle',
  compact_during: 'busy',
  context_autocomplete: 'idle',
  context_usage: 'idle',
  ctrl_c_exit_hint: 'idle',
  ctrl_d_exit_hint: 'idle',
  ctrl_s_stash_active: 'idle',
  ctrl_z_suspend: 'unknown',
  edit_permission_dialog: 'blocked',
  escape_clear_hint: 'idle',
  exit_autocomplete: 'idle',
  export_autocomplete: 'idle',
  export_filename_dialog: 'blocked',
  export_method_dialog: 'blocked',
  fork_no_conversation: 'idle',
  help_autocomplete: 'idle',
  help_commands_tab: 'blocked',
  help_response: 'blocked',
  hook_session_start: 'idle',
  hook_settings_merge: 'idle',
  hook_stop_after_response: 'idle',
  hooks_autocomplete: 'idle',
  hooks_dialog: 'blocked',
  hooks_matcher_dialog: 'blocked',
  initial_state: 'idle',
  model_haiku: 'idle',
  model_opus: 'idle',
  model_picker: 'blocked',
  model_sonnet: 'idle',
  permission_accept_edits: 'idle',
  permission_bypass_mode: 'idle', // the accepted warning dialog is still on screen above the input box
  permission_default: 'idle',
  permission_plan: 'idle',
  plan_autocomplete: 'idle',
  plan_command_already_active: 'idle',
  plan_command_enable: 'busy',
  setup_01_select_theme_dark: 'blocked',
  setup_01_select_theme_light: 'blocked',
  setup_01a_syntax_highlighting_disabled: 'blocked',
  setup_02_login_method: 'blocked',
  shell_mode_command: 'idle',
  shell_mode_prefix: 'idle',
  shortcuts_display: 'idle',
  slash_menu: 'idle',
  slash_menu_filtered: 'idle',
  slash_search_tab_complete: 'idle',
  status_bar_extended: 'idle',
  tasks_empty_dialog: 'blocked',
  thinking_dialog: 'blocked',
  thinking_dialog_disabled_selected: 'blocked',
  thinking_dialog_enabled_selected: 'blocked',
  thinking_dialog_mid_conversation: 'blocked',
  thinking_off_status: 'idle',
  todos_empty: 'idle',
  trust_folder_dialog: 'blocked',
  trust_prompt: 'blocked',
  welcome_back: 'idle',
  with_input: 'idle',
  write_permission_dialog: 'blocked',
};

export interface ClaudeScreen {
  file: string;
  name: string;
  text: string;
}

/** Every Claude Code 2.1.29 screen: plain `.tui.txt`/`.tmux.txt`, and `.tui.ansi.txt` stripped. */
export function claudeScreens(): ClaudeScreen[] {
  const dir = path.join(corpusDir, 'claude-code-2.1.29');
  return fs
    .readdirSync(dir)
    .sort()
    .map((file) => {
      const raw = fs.readFileSync(path.join(dir, file), 'utf8');
      return {
        file,
        name: file.replace(/\.(tui|tmux)(\.ansi)?\.txt$/, ''),
        text: file.includes('.ansi.') ? stripAnsi(raw) : raw,
      };
    });
}

/**
 * What the answer of each agentapi `format` case must be, decided by reading the screen:
 * its first and last lines with text (box borders and padding trimmed), or empty.
 */
export const FORMAT_TRUTH: Record<string, { first: string; last: string } | 'empty'> = {
  'claude/auto-accept-edits': {
    first: '✻ Welcome to Claude Code research preview!',
    last: '4. Be as specific as you would with another engineer for the best results',
  },
  'claude/first_message': {
    first: '✻ Welcome to Claude Code research preview!',
    last: '4. Be as specific as you would with another engineer for the best results',
  },
  'claude/multi-line-input': {
    first: '⏺ Let me search for this code in the project files.',
    last: '/Users/hugodutka/dev/agentapi/chat/src/components/ChatInterface.tsx',
  },
  'claude/remove-task-tool-call': {
    first: '● coder - coder_report_task (MCP)(summary: "Snake game created',
    last: 'Above is a malformed tool call message',
  },
  'claude/second_message': {
    first: "⏺ I'm doing well! How can I help you with your coding project today?",
    last: "⏺ I'm doing well! How can I help you with your coding project today?",
  },
  'codex/confirmation_box': {
    first: '> You are running Codex in /Users/jkmr',
    last: 'Press Enter to continue',
  },
  'codex/first_message': {
    first: '>_ You are using OpenAI Codex in ~',
    last: '/prompts - show example prompts',
  },
  'codex/multi-line-input': {
    first: '⚡ Ran command grep -R formatCodexMessage -n .',
    last: '`lib/msgfmt/msgfmt.go` (around line 219)',
  },
  'codex/remove-task-tool-call': {
    first: '• Called',
    last: '{"message": "Thanks for reporting!"}',
  },
  'codex/second_message': {
    first: '⚡ Ran command git status --porcelain',
    last: 'There are 2 untracked files (`.env` and `forge.yaml`).',
  },
  'codex/thinking': 'empty', // only the "• Working" spinner is on screen: no answer yet
  'gemini/first_message': {
    first: 'Tips for getting started:',
    last: '4. /help for more information.',
  },
  'gemini/multi-line-input': {
    first: "✔  SearchText 'setInterval\\(fetchMessages, 1000\\)' in **/*.tsx",
    last: 'or something else?',
  },
  'gemini/second_message': {
    first: '✦ I am ready to assist you. What can I help you with?',
    last: '✦ I am ready to assist you. What can I help you with?',
  },
  'aider/first_message': {
    first: 'Aider v0.81.1',
    last: 'Repo-map: using 4096 tokens, auto refresh',
  },
  'aider/multi-line-input': {
    first: 'Based on the code snippet you shared, this appears to be from the',
    last: 'You can use /undo to undo and discard each aider commit.',
  },
  'aider/second_message': {
    first: "I'm doing well, thank you for asking! How can I help you with your project",
    last: 'accomplish that.',
  },
  'copilot/confirmation_box': {
    first: "● I'll search for this code in the repository to find which file it belongs to.",
    last: 'Confirm with number keys or ↑↓ keys and Enter, Cancel with Esc',
  },
  'copilot/first_message': {
    first: 'Welcome to GitHub Copilot CLI',
    last: '● Connected to GitHub MCP Server',
  },
  'copilot/multi-line-input': {
    first: "● I'll search for this code in the repository to find which file it belongs to.",
    last: 'the server.',
  },
  'copilot/thinking': {
    first: "● I'll search for this code in the repository to find which file it belongs to.",
    last: '↪ 1 line...',
  },
};

/** Input box, footer and status lines of each agent: none may be in an answer. */
export const NOT_ANSWER: Record<CorpusAgent, RegExp[]> = {
  claude: [/^❯\s*$/u, /\? for shortcuts/u, /⏵⏵/u, /^[─╌]{20,}$/u],
  codex: [/^›/u, /% left/u, /^codex$/u, /^user$/u],
  gemini: [/Type your message/u, /context left/u, /no sandbox/u],
  aider: [/^>\s*$/u, /^Tokens: /u, /^─{10,}$/u],
  copilot: [/Enter @ to mention files/u, /Ctrl\+c Exit/u, /\[⎇ /u, /Thinking \(Esc to cancel\)/u],
};

export interface FormatCase {
  agent: CorpusAgent;
  id: string;
  msg: string;
  user: string;
  expected: string;
}

export function formatCases(): FormatCase[] {
  const out: FormatCase[] = [];
  for (const agent of CORPUS_AGENTS) {
    const dir = path.join(corpusDir, 'agentapi', 'format', agent);
    for (const kase of fs.readdirSync(dir).sort()) {
      const read = (f: string): string => fs.readFileSync(path.join(dir, kase, f), 'utf8');
      out.push({
        agent,
        id: `${agent}/${kase}`,
        msg: read('msg.txt'),
        user: read('user.txt'),
        expected: read('expected.txt'),
      });
    }
  }
  return out;
}

/** A line without box borders and padding, for comparing lines. */
export function textOf(line: string): string {
  return line.replace(/^[\s│]+|[\s│]+$/gu, '');
}

const hasText = (l: string): boolean => /[\p{L}\p{N}]/u.test(l);

export interface FormatCheck {
  answer: string;
  problems: string[];
}

/**
 * Extracts the answer of one format case and lists what is wrong with it: wrong first/last
 * line, a line of expected.txt's substance missing or out of order, an input box / footer /
 * echo line leaked in.
 */
export function checkFormatCase(k: FormatCase): FormatCheck {
  const preset = BUILTIN_PRESETS[k.agent]!;
  const compiled = compilePreset(preset);
  const answer = extractAnswer(k.msg.split('\n'), k.user, preset);
  const problems: string[] = [];
  const lines = answer.split('\n').map(textOf).filter(hasText);
  // The agent's block marks (● • ✦) are chrome to clippy; agentapi's truth keeps them.
  const bullets = preset.answerBullet ?? [];
  const unmarked = (line: string): string => withoutBullets([line], bullets)[0]!;
  const truth = FORMAT_TRUTH[k.id];
  if (truth === undefined) problems.push('no truth recorded for this case');
  else if (truth === 'empty') {
    if (answer !== '')
      problems.push(`expected no answer, got ${JSON.stringify(answer.slice(0, 80))}`);
  } else {
    const [first, last] = [unmarked(truth.first), unmarked(truth.last)];
    if (lines[0] !== first)
      problems.push(`first line ${JSON.stringify(lines[0])} ≠ ${JSON.stringify(first)}`);
    if (lines.at(-1) !== last)
      problems.push(`last line ${JSON.stringify(lines.at(-1))} ≠ ${JSON.stringify(last)}`);
  }
  // Substance of agentapi's trimming: its lines with text, minus chrome and input/footer lines.
  const notAnswer = NOT_ANSWER[k.agent];
  // agentapi keeps what is above the echo (the banner) on some screens, and aider's files in
  // chat below its last rule: neither is the answer.
  let expected = k.expected.split('\n');
  expected = withoutBullets(expected.slice(echoEnd(expected, expected.length, k.user)), bullets);
  if (preset.kind === 'line') {
    const rule = expected.findLastIndex((l) => firstMatch(compiled.inputTop, l) >= 0);
    if (rule >= 0) expected = expected.slice(0, rule);
  }
  const substance = expected
    .filter((l) => firstMatch(compiled.chrome, l) < 0)
    .map(textOf)
    .filter((l) => hasText(l) && !notAnswer.some((re) => re.test(l)));
  let at = 0;
  for (const want of substance) {
    const found = lines.indexOf(want, at);
    if (found < 0) {
      problems.push(`missing ${JSON.stringify(want.slice(0, 80))}`);
      break;
    }
    at = found + 1;
  }
  for (const l of lines) {
    const bad = notAnswer.find((re) => re.test(l));
    if (bad) problems.push(`input box/footer line leaked: ${JSON.stringify(l.slice(0, 80))}`);
  }
  const firstUser = k.user.split('\n')[0]!.trim();
  if (firstUser !== '') {
    const echo = lines.find(
      (l) => /^[>❯›]\s/u.test(l) && l.replace(/^[>❯›]\s+/u, '') === firstUser,
    );
    if (echo !== undefined) problems.push(`echo leaked: ${JSON.stringify(echo)}`);
    if (lines[0] === firstUser) problems.push('answer starts with the echoed input');
  }
  return { answer, problems };
}

/** Classifies a screen with an agent's built-in preset. */
export function classifyWith(agent: string, text: string): ScreenState {
  return classifyScreen(text, BUILTIN_PRESETS[agent]!).state;
}

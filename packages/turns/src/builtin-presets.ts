import type { Preset } from './preset-types.js';

// The one table of built-in presets. Markers come from the real screens in the corpus
// (see docs/presets.md for what each was checked on); they are data, not code.
const r = String.raw;

/**
 * Qwen Code's Ctrl-U: empties the input line left of the cursor, or at its start joins it to the
 * line above; nothing in an empty box. Typed this many times it empties a message of up to 32
 * lines put back in the box (2n − 1 presses for n lines; the cursor is at its end).
 */
const QWEN_CLEAR_INPUT = '\u0015'.repeat(63);

/** Claude Code's spinner line above the input box: a glyph, a verb, an ellipsis. */
const CLAUDE_SPINNER = r`^[·✢✳✶✻✽*] \S.*…`;
/** The same line while Claude waits to retry a failed request (2.1.2xx): "✻ 529 Overloaded ·
 * Retrying in 4s · attempt 6/10", no ellipsis. */
const CLAUDE_RETRY_SPINNER = r`^[·✢✳✶✻✽*] \S.* · Retrying in \d`;

export const BUILTIN_PRESETS: Record<string, Preset> = {
  generic: {
    name: 'generic',
    kind: 'line',
    description:
      'Fallback: a line ending in a common prompt character and a space ($ # % > ❯ ➜ »).',
    checkedOn: ['bash 5.2.15, Python 3.11.7 and Node.js 20.20 prompts (unit fixtures)'],
    pattern: r`[$#%>❯➜»] $`,
    model: 'unknown',
    provider: 'unknown',
  },
  bash: {
    name: 'bash',
    kind: 'line',
    description: 'bash with a PS1 ending in "$ " (or "# " for root).',
    checkedOn: ['GNU bash 5.2.15 (default and user@host:~$ prompts, bracketed paste on)'],
    pattern: r`[$#] $`,
    model: 'unknown',
    provider: 'unknown',
  },
  zsh: {
    name: 'zsh',
    kind: 'line',
    description:
      'zsh: "% " / "# " / "$ " endings, "❯ " themes (pure, starship) and oh-my-zsh "➜  dir ".',
    checkedOn: [
      'zsh with a starship-style "❯" prompt, PROMPT_SP and autosuggestions (raw stream around Claude Code 2.1.105)',
    ],
    pattern: r`(?:[%#$❯] |^➜ .* )$`,
    model: 'unknown',
    provider: 'unknown',
  },
  fish: {
    name: 'fish',
    kind: 'line',
    description: 'fish default prompt "user@host ~> " (or "# " for root).',
    checkedOn: ['fish 3.x default prompt format (no capture in the corpus)'],
    pattern: r`[>#] $`,
    model: 'unknown',
    provider: 'unknown',
  },
  python: {
    name: 'python',
    kind: 'line',
    description:
      'Python REPL: ">>> " (also after output left without a newline) and the continuation prompt "... ".',
    checkedOn: ['Python 3.11.7 REPL (bracketed paste and typed input, unit fixtures)'],
    pattern: r`>>> $`,
    continuation: r`^\.\.\. $`,
    model: 'unknown',
    provider: 'unknown',
  },
  node: {
    name: 'node',
    kind: 'line',
    description: 'Node.js REPL: "> " and the continuation prompt "... ".',
    checkedOn: ['Node.js 20.20 REPL'],
    pattern: r`^> $`,
    continuation: r`^\.\.\. $`,
    model: 'unknown',
    provider: 'unknown',
  },
  aider: {
    name: 'aider',
    kind: 'line',
    description:
      'aider: "> " prompt ({edit_format}{ multi}> ) under a ─── rule and the files in chat; asks "(Y)es/(N)o" questions.',
    checkedOn: ['aider 0.81.1 (agentapi format: 3 cases; initialization: ready, not_ready)'],
    pattern: r`^(?:[a-z][\w-]*)?(?: ?multi)?> $`,
    blocked: [r`\(Y\)es/\(N\)o`, r`\[(?:Yes|No)\]: ?$`],
    chrome: [r`^Tokens: .+ sent, .+ received`, r`^─{10,}$`, r`Waiting for \S`],
    inputLine: [r`^(?:[a-z][\w-]*)?(?: ?multi)?>\s*$`],
    inputTop: [r`^─{10,}$`],
    bottomLines: 2,
    // Where aider reads its terminal with input() (no bracketed paste: --no-fancy-input, a dumb
    // terminal), a line "{tag" opens a block of lines it takes as one message and "tag}" ends it
    // (aider/io.py get_input); its prompt_toolkit input enables paste mode and needs none.
    multiline: { mode: 'block', open: '{clippy', close: 'clippy}' },
    model: 'unknown',
    provider: 'unknown',
  },
  claude: {
    name: 'claude',
    kind: 'screen',
    description:
      'Claude Code: "❯" input between ─ rules (older: "> " in a box), spinner line "✻ Verbing…" and "esc to interrupt" while busy, numbered dialogs with "Esc to cancel" when asking.',
    checkedOn: [
      'Claude Code 2.1.29 (claudeless fixtures: every screen, plain and ANSI)',
      'Claude Code research-preview screens (agentapi format: 5 cases; initialization: 3 ready, 1 not_ready)',
      'Claude Code 2.1.105 raw PTY stream (asciicast v3)',
      'Claude Code 2.1.197 (trust, API-key and login dialogs, input screens empty and with text: test/screens)',
      'Claude Code 1.0.17–2.1.259 screens pasted in public issue threads (test/screens/public: 12)',
    ],
    idle: [r`^❯(?:\s|$)`, r`^\s*(?:│\s*)?>(?:\s|$)`, r`^\s*│ Type your message`, r`^!(?:\s|$)`],
    busy: [CLAUDE_SPINNER, r`[Ee]sc to interrupt`, CLAUDE_RETRY_SPINNER],
    blocked: [
      r`^(?:\s+|\s*│\s+)❯ `,
      r`Esc to cancel`,
      r`Enter to confirm`,
      r`Enter to select`,
      r`Esc to exit`,
      r`Esc to close`,
      r`Esc to go back`,
      r`Do you want to proceed\?`,
      r`Do you want to (?:make this edit|create) `,
    ],
    chrome: [
      CLAUDE_SPINNER,
      CLAUDE_RETRY_SPINNER,
      r`^✻ \S+ for \d`,
      r`^\s*⎿\s+Tip: `,
      r`^\s*\? for shortcuts`,
      r`^\s*⏵⏵ `,
      r`^\s*⏸ `,
      r`esc to interrupt`,
    ],
    inputLine: [
      r`^❯(?:\s|$)`,
      r`^\s*(?:│\s*)?>(?:\s|$)`,
      r`^\s*│ Type your message`,
      r`^!(?:\s|$)`,
    ],
    inputTop: [r`^\s*[─╌]{10,}\s*$`, r`^\s*╭─`],
    // Between the spinner line and the input box while Claude works: the task list (Ctrl-T:
    // ◼ in progress, ◻ pending, ✔ done), tool calls and their output blocks (⏺ Bash(…), ⎿ …,
    // lines indented under ⎿), hook messages ("Running PreToolUse hook…"), blank lines.
    live: [
      r`^\s*$`,
      r`^\s*[◼◻✔☐☒■□✓]\s`,
      r`^\s*⎿`,
      r`^\s{4,}\S`,
      r`^⏺ \w+\(`,
      r`Running \w+ hooks?…`,
      r`^\s*… \+\d+ (?:lines|pending|completed)`,
    ],
    // The window title: a braille spinner (or ◐◑◒◓) while it works, ✳ when it waits (2.1.x).
    busySignal: [r`^[02];[\u2800-\u28ff◐◑◒◓] `],
    idleSignal: [r`^[02];✳ `],
    bottomLines: 20,
    model: 'unknown',
    provider: 'anthropic',
    answerBullet: ['● ', '⏺ '],
    agent: 'claude',
  },
  codex: {
    name: 'codex',
    kind: 'screen',
    description:
      'OpenAI Codex CLI: "› " composer line with a "… % left" footer; "• Working (3s • Esc to interrupt)" while busy; numbered sign-in, trust and approval prompts ("Press enter to continue", "enter continue · esc back") when asking.',
    checkedOn: [
      'Codex CLI with gpt-5.1-codex-max (agentapi format: 6 cases; initialization: ready, not_ready)',
      'codex-cli 0.169.0 (sign-in, API-key and trust dialogs, input screen: test/screens)',
      'codex-cli 0.171.0 (input screen with text: test/screens)',
      'codex-cli screens pasted in public issue threads and rendered by its snapshot tests (test/screens/public: 9)',
    ],
    idle: [r`^›(?:\s|$)`],
    // "Waiting for startup": a message submitted while Codex still loads, sent once it has.
    busy: [
      r`• Working \(`,
      r`[Ee]sc to interrupt\)`,
      r`Ctrl C to interrupt`,
      r`^\s*Waiting for startup\b`,
    ],
    blocked: [
      r`press enter to confirm or esc to cancel`,
      r`[Aa]llow command\?`,
      r`\[y/n\]`,
      r`Press [Ee](?:nter|sc) to \w`,
      r`^\s*[>›] \d+\. `,
      r`^\s*enter \w+ · esc \w+`,
      r`Trust this folder\?`,
    ],
    chrome: [
      r`• Working \(`,
      r`\d+% (?:context )?left`,
      r`^codex$`,
      r`^\s*\? for shortcuts`,
      // The line under a finished answer: "Worked for 12s • 14:03" (0.171).
      r`^\s*(?:─+ )?Worked for [<\d]`,
      // Tips it adds under an answer or the banner ("└ Tip: You can resume…").
      r`^\s*(?:└\s*)?Tip: `,
    ],
    inputLine: [r`^›(?:\s|$)`],
    // Its status report (0.171): `OSC 7501;state=working:app=codex` from the moment it takes a
    // message (also while it still loads, when its screen looks idle) to `state=done`.
    busySignal: [r`^7501;state=working\b`],
    idleSignal: [r`^7501;state=(?:idle|done|clear)\b`],
    bottomLines: 12,
    // Its alternate screen is rewritten line by line: a dialog closing is read in part.
    redrawsWhole: true,
    model: 'unknown',
    provider: 'openai',
    answerBullet: ['• '],
    agent: 'codex',
  },
  gemini: {
    name: 'gemini',
    kind: 'screen',
    description:
      'Gemini CLI: "│ >   Type your message or @path/to/file │" box (0.61: a borderless shaded band under a ─ rule); "(esc to cancel, 5s)" spinner while busy; "● 1." choice dialogs (trust, auth), "Allow execution" / "Yes, allow once" and the API-key box when asking. Answers start with ✦.',
    checkedOn: [
      'Gemini CLI with gemini-2.5-pro (agentapi format: 3 cases; initialization: ready, not_ready)',
      'Gemini CLI 0.61.0 (trust, auth and API-key dialogs, input screens empty and with text, busy screen: test/screens)',
      'Gemini CLI 0.1.x screens pasted in public issue threads (test/screens/public: 3)',
    ],
    // The prompt `>` starts the input line, with the hint or with text typed in it.
    idle: [r`^\s*(?:│\s*)?>\s`, r`Type your message or @path/to/file`],
    busy: [r`\(esc to cancel, \d+`],
    // 0.61 `--resume`: its box replaced by a spinner while it loads the chat (keys dropped).
    loading: [r`^\s*\S Resuming session\.\.\.$`],
    blocked: [
      r`Allow execution`,
      r`Do you want to proceed`,
      r`Yes, allow once`,
      r`[Ww]aiting for user confirmation`,
      r`Apply this change\?`,
      r`^\s*│?\s*● \d+\. `,
      r`Do you trust the files in this folder\?`,
      r`How would you like to authenticate`,
      r`\(Use Enter to select\)`,
      r`\(Press Enter to submit\b`,
    ],
    chrome: [
      r`\(esc to cancel, \d+`,
      r`\(\d+% context left\)`,
      r`\? for shortcuts$`,
      r`^─{20,}$`,
      r`^\s*Shift\+Tab to accept edits$`,
      // The shaded band of an echoed message's box (true colour): its edges.
      r`^[▀▄]{10,}$`,
      // The hint it shows for a while after a long paste.
      r`^\s*Press Ctrl\+O to expand pasted text`,
    ],
    inputLine: [r`^\s*(?:│\s*)?>\s`, r`Type your message or @path/to/file`],
    // 0.61 draws the input on a shaded band with no border: a blank line above it in text, or
    // a row of half blocks where the terminal has true colour (COLORTERM=truecolor).
    inputTop: [r`^\s*╭─`, r`^$`, r`^▄{10,}$`],
    // The window title (0.61, ui.dynamicWindowTitle): "✦  Working…" or the thought's subject,
    // "⏲  Working…", "✋  Action Required", "◇  Ready".
    busySignal: [r`^[02];(?:✦|⏲) `],
    idleSignal: [r`^[02];◇ `],
    blockedSignal: [r`^[02];✋ `],
    bottomLines: 12,
    model: 'unknown',
    provider: 'google',
    answerBullet: ['✦ '],
    agent: 'gemini',
  },
  qwen: {
    name: 'qwen',
    kind: 'screen',
    description:
      'Qwen Code: ">   Type your message or @path/to/file" between ─ rules (it stays while busy); "⠼ Phrase… (12s · esc to cancel)" above it while busy; numbered dialogs ("Allow execution of: …?", "Apply this change?" with "› 1. Yes, allow once"), the folder-trust and provider dialogs when asking. Answers start with ◆.',
    checkedOn: [
      'Qwen Code 0.24.4 (provider, trust, shell and edit approval dialogs, input screens empty, with text and with a suggestion, busy screen: test/screens)',
    ],
    // The input line: the hint, typed text, or a dimmed suggestion of what to type next. Its
    // answers' and echoes' lines are indented; the input line is not.
    idle: [r`^>\s`, r`Type your message or @path/to/file`],
    // The spinner line: "(3s · esc to cancel)", "(1m 2s · ↓ 1.2k tokens · esc to cancel)"; the
    // input box below it looks as when idle.
    // A message sent while it still finishes something (its start, the turn before) waits in its
    // queue, drawn above the input line with a hint (the first three times): it will work on it.
    busy: [
      r`· esc to cancel\)`,
      r`^\s*Enter to steer · Ctrl\+Q to queue`,
      r`^\s*Ctrl\+Q to queue · ↑ to edit queued messages`,
    ],
    blocked: [
      r`Allow execution of`,
      r`Apply this change\?`,
      r`Yes, allow once`,
      r`No, suggest changes \(esc\)`,
      r`Waiting for user confirmation`,
      r`Do you want to proceed\?`,
      r`Do you trust this folder\?`,
      r`Connect a Provider`,
      r`Enter to select, ↑↓ to navigate`,
      r`^\s*│?\s*› \d+\. `,
    ],
    chrome: [
      r`· esc to cancel\)`,
      r`^─{20,}$`,
      r`^\s*Enter to steer · Ctrl\+Q to queue`,
      r`^\s*Ctrl\+Q to queue · ↑ to edit queued messages`,
      r`^\s*Tips: `,
    ],
    inputLine: [r`^>\s`],
    inputTop: [r`^─{10,}$`],
    // The window title (0.24, ui.showStatusInTitle): "◐︎ Qwen - <folder>" while it works, "✳︎ …"
    // while it waits for a confirmation, the title alone when idle.
    busySignal: [r`^[02];◐`],
    blockedSignal: [r`^[02];✳`],
    idleSignal: [r`^[02];(?![◐✳])`],
    // The provider dialog stands 17 lines tall, its title at its top.
    bottomLines: 20,
    // 0.24.4 commits a streamed answer in pieces (at its paragraph breaks) and shows the turn
    // done (spinner gone, idle title) a frame before it draws the last piece: a list answer's
    // "Steps:" alone over the input box (test/screens qwen-answer-partly-drawn), the rest 110
    // and 500 ms later in two runs at a load of 16 on 2 cores. Ended on that frame, the turn
    // kept "Steps:" alone; four times the longest gap seen. With its transcript (the channel
    // on) the record shortens the wait (RECORDED_SETTLE_MS): only screen-read turns pay it.
    settleMs: 2_000,
    model: 'unknown',
    provider: 'unknown',
    // "  ◆︎ " (with a text-presentation selector) before each answer, two columns in.
    answerBullet: ['  ◆︎ ', '  ◆ '],
    // A message Esc cancelled is put back in its box: emptied before the next text is typed.
    clearInput: QWEN_CLEAR_INPUT,
    agent: 'qwen',
  },
  copilot: {
    name: 'copilot',
    kind: 'screen',
    description:
      'GitHub Copilot CLI: "❯" input between ─ rules over a "… / commands · ? help" footer (before 1.0: a "│ >  Enter @ to mention files or / for commands │" box, "Ctrl+c Exit"); "◉ Working · 16 B esc esc interrupt" (before: "◉ Thinking (Esc to cancel)") while busy; numbered confirmation boxes when asking. Answers start with ●.',
    checkedOn: [
      'GitHub Copilot CLI 0.0.328 (agentapi format: 4 cases; initialization: ready, not_ready)',
      'GitHub Copilot CLI 0.0.328–1.0.19 screens pasted in public issue threads (test/screens/public: 6)',
      'GitHub Copilot CLI 1.0.102 (folder trust and command approval dialogs, input screens empty and with text, busy, answered: test/screens)',
    ],
    // 1.0.102: "❯" at the left edge under a rule (an echoed message is " ❯ …", indented).
    idle: [r`Enter @ to mention files or / for commands`, r`^\s*│ >\s*$`, r`^❯(?:\s|$)`],
    // "● Cancelling" alone on its line: Copilot stops the operation and takes no input until done.
    busy: [
      r`\(Esc to cancel\)`,
      r`◉ Thinking`,
      r`^\s*[●◉] Cancelling(?:…|\.\.\.)?$`,
      r`esc esc interrupt`,
      r`^\s*[◉◎○●] Working · `,
    ],
    blocked: [
      r`Confirm with number keys`,
      r`Do you want to run this command\?`,
      r`^\s*│?\s*❯ \d+\. `,
      r`Cancel with Esc`,
      r`\(y/n\):?$`,
      r`Do you trust the files in this folder\?`,
    ],
    chrome: [
      r`\(Esc to cancel\)`,
      r`^\s*Ctrl\+c Exit`,
      r`^\s*~\S* \[⎇ .*\]$`,
      // 1.0.102: the folder above its input box's rule (and its branch in a repository).
      r`^ [~/]\S*(?: \[⎇ [^\]]*\])?$`,
    ],
    inputLine: [r`Enter @ to mention files or / for commands`, r`^\s*│ >\s*$`, r`^❯(?:\s|$)`],
    inputTop: [r`^\s*╭─`, r`^─{10,}$`],
    // Ctrl-C while it works stops it ("Operation cancelled by user") on every version. 1.0.102's
    // "esc esc interrupt" wants two Escs read apart (0.1–0.5 s): a loaded Copilot reads them as
    // one ESC ESC sequence and goes on working.
    interruptKeys: ['C-c'],
    bottomLines: 12,
    model: 'unknown',
    provider: 'github',
    answerBullet: [' ● ', '● '],
    agent: 'copilot',
  },
  opencode: {
    name: 'opencode',
    kind: 'screen',
    description:
      'OpenCode: a "┃" input box closed by "╹▀▀▀", over a footer ending "ctrl+p commands"; "⬝⬝■■ esc interrupt" in that footer while busy; "△ Permission required" with "Allow once  Allow always  Reject" and its "Select model … esc" dialogs when asking. Answers are indented 5 columns.',
    checkedOn: [
      'OpenCode 1.18.33 (home and session input screens, busy, permission and model dialogs: test/screens)',
    ],
    // The footer under the input box: it ends "ctrl+p commands" whenever the box takes input
    // (a dialog over it cuts it), and is drawn only once the box is.
    idle: [r`ctrl\+p commands\s*$`],
    busy: [r`esc (?:again to )?interrupt`],
    blocked: [
      r`△ Permission required`,
      r`Allow once\s+Allow always\s+Reject`,
      r`enter confirm\s*$`,
      // A dialog's title row: its name, then "esc" at its right edge.
      r`^\s+\S.*\S {5,}esc\s*$`,
    ],
    chrome: [
      // The line under each answer: "▣  Build · Fake Model · 26.5s".
      r`^\s*▣ `,
    ],
    inputLine: [r`ctrl\+p commands\s*$`],
    inputTop: [r`^\s*╹▀{10,}`],
    // The box's rows above its bottom border, each with its bar: the text typed, the agent and
    // model line.
    inputAbove: [r`^\s*┃`],
    // Its dialogs are centred: over the home screen's box (its footer cut) a dialog's title
    // row is two thirds up a 30-row screen.
    bottomLines: 30,
    model: 'unknown',
    provider: 'unknown',
    // Its first Esc only asks for a second ("esc again to interrupt"): read apart, not as one
    // ESC ESC (a loaded OpenCode redraws its spinner long before it reads a key).
    interruptKeys: ['Esc', 'Esc'],
    interruptArmed: [r`esc again to interrupt`],
    // 1.18.33 shows a turn done (footer idle, "▣  Build · Fake Model · 1.5s") a frame before it
    // draws the answer: 131 ms apart at a load of 27 on 2 cores (test/screens
    // opencode-answer-not-drawn), longer under more load. A turn that really shows nothing ends
    // after this.
    emptyAnswerMs: 5_000,
    // While an answer streams in, 1.18.33 leaves list items half-written ("1.", "   - the",
    // "3. Writ") and draws the answer whole only after it shows the turn done: 1.1 s later on a
    // loaded 2-core machine (stress-ng --cpu 2), where the 200 ms settle had ended the turn with
    // the half-written text. A streamed answer waits for that redraw, up to this long.
    answerRedrawMs: 3_000,
    // A list item with only its number or bullet: every half-written answer captured shows one
    // ("1." under stress-ng, "1." and "2." in CI's full suite when the 3 s had passed, a stray
    // "-" on a quiet machine), a model's answer hardly ever. Its redraw is waited for longer.
    // Only "-": OpenCode draws "*" and "+" items with it, and a bare " *" is a line of a code
    // block's doc comment.
    answerUnfinished: [r`^\s*(?:\d+[.)]|-)\s*$`],
    // Not a mark: OpenCode indents every line of an answer by 5 columns (a list's own
    // indentation comes on top of it).
    answerBullet: ['     '],
    agent: 'opencode',
  },
};

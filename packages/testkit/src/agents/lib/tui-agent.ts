import { bigLine, nthAnswer, pieceLine } from './answer.js';
import { applyEdits } from './edits.js';
import { ClaudeHooks } from './claude-hooks.js';
import { KeyParser } from './keys.js';
import { logChoice, logPrompt, logSubmission } from './log.js';
import type { AgentOptions } from './options.js';
import { pieceGap } from './piece-gap.js';
import { sleep, write } from './sleep.js';
import { thinkTime } from './think-time.js';

/** Spinner frames Claude Code cycles through on its status line. */
const SPINNER = ['·', '✢', '✳', '✶', '✻', '✽'];
/** Spinner redraw period: Claude Code redraws its status line about this often. */
const SPINNER_MS = 120;
/** Above this many lines the input box collapses a paste into one line, as Claude Code does. */
const MAX_BOX_LINES = 6;
/** The command the agent asks permission for (`--ask`), and the choices of its dialog. */
const ASK_COMMAND = 'make test';
const ASK_CHOICES = [
  'Yes',
  "Yes, and don't ask again for make commands in this project",
  'No, and tell Claude what to do differently (esc)',
];

/**
 * A Claude-Code-style TUI: raw mode, bracketed paste on, a banner, the `❯` input box between
 * two `────` rules with a `? for shortcuts` footer, redrawn in place the way Ink does (erase the
 * live region, write it again). While busy a spinner line `✻ Thinking… (esc to interrupt)`
 * is redrawn above the box, which stays visible. Answers are `⏺` lines, then `✻ Worked for Ns`.
 */
export async function runTuiAgent(opts: AgentOptions): Promise<void> {
  /** Answers given so far (the scripted replies are taken in order). */
  let answered = 0;
  const gap = pieceGap(opts);
  const think = thinkTime(opts);
  let cols = process.stdout.columns || 80;
  let rows = process.stdout.rows || 24;
  let liveHeight = 0;
  /** Lines the cursor sits above the end of the live region (in the input line). */
  let parkedUp = 0;
  let input: Buffer[] = [];
  let pasted = false;
  let busy = false;
  let interrupted = false;
  let frame = 0;
  let spinner: NodeJS.Timeout | null = null;
  let startedAt = 0;
  let newlineEnters = opts.newlineEnters;
  /** `--drop-enter`: the Enter to drop is still to come; the box is replaced meanwhile. */
  let dropEnter = opts.dropEnterMs > 0;
  /** `--drop-input`: the text to drop is still to come; the box is replaced meanwhile. */
  let dropInput = opts.dropInputMs > 0;
  let resuming = false;
  /** The box replaced by "Resuming session..." for `ms`, every key read meanwhile dropped. */
  const resume = (ms: number): void => {
    resuming = true;
    setTimeout(() => {
      resuming = false;
      void render();
    }, ms);
  };
  const queue: Buffer[] = [];
  /** The permission dialog on screen (`--ask`): where its cursor is, and who waits for the choice. */
  let asking: { selected: number; choose: (index: number) => void } | null = null;

  const wrap = (line: string): string[] => {
    const chars = [...line];
    if (chars.length <= cols) return [line];
    const out: string[] = [];
    for (let i = 0; i < chars.length; i += cols) out.push(chars.slice(i, i + cols).join(''));
    return out;
  };
  const visible = (s: string): string =>
    s.replace(/\x1b/g, '␛').replace(/[\x00-\x09\x0b-\x1f]/g, '·');
  const boxLines = (): string[] => {
    // Counted without joining the input: a big paste arrives in many chunks.
    let bytes = 0;
    let newlines = 0;
    for (const b of input) {
      bytes += b.length;
      for (let i = b.indexOf(0x0a); i >= 0; i = b.indexOf(0x0a, i + 1)) newlines++;
    }
    if (newlines + 1 > MAX_BOX_LINES || bytes > cols * MAX_BOX_LINES) {
      return [`❯ [Pasted text #1 +${newlines + 1} lines]`];
    }
    const lines = visible(Buffer.concat(input).toString('utf8')).split('\n');
    return lines.flatMap((l, i) => wrap(`${i === 0 ? '❯ ' : '  '}${l}`));
  };
  /** Claude Code's permission dialog (corpus: bash_permission_dialog), in place of the input box. */
  const dialog = (selected: number): string[] => [
    '─'.repeat(cols),
    ' Bash command',
    '',
    `   ${ASK_COMMAND}`,
    '   Run the tests',
    '',
    ' Do you want to proceed?',
    ...ASK_CHOICES.map((c, i) => `${i === selected ? ' ❯' : '  '} ${i + 1}. ${c}`),
    '',
    ' Esc to cancel · Tab to amend',
  ];
  const live = (): string[] => {
    if (asking) return dialog(asking.selected);
    if (resuming) return ['⠋ Resuming session...', '', '─'.repeat(cols), '  workspace'];
    const rule = '─'.repeat(cols);
    const status = busy
      ? [`${SPINNER[frame % SPINNER.length]} Thinking… (esc to interrupt)`, '']
      : [];
    const footer = busy ? '  esc to interrupt' : '  ? for shortcuts';
    return [...status, rule, ...boxLines(), rule, footer];
  };
  // Ink's log-update: erase the previous live region line by line, moving up, then rewrite.
  const erase = (): string => {
    // From the input line (--cursor-in-box) back to the end of the live region first.
    let s = parkedUp ? `\x1b[${parkedUp}B` : '';
    parkedUp = 0;
    for (let i = 0; i < liveHeight; i++) s += `\x1b[2K${i < liveHeight - 1 ? '\x1b[1A' : ''}`;
    return liveHeight ? `${s}\x1b[G` : '';
  };
  const render = (staticLines: string[] = []): Promise<void> => {
    const region = live().slice(-Math.max(4, rows - 2));
    const head = staticLines
      .flatMap(wrap)
      .map((l) => `${l}\n`)
      .join('');
    let out = `${erase()}${head}${region.join('\n')}\n`;
    liveHeight = region.length + 1;
    if (opts.cursorInBox) {
      // Up past the footer and the rule to the end of the input line: [..., input, rule, footer].
      parkedUp = 3;
      out += `\x1b[${parkedUp}A\x1b[${[...region[region.length - 3]!].length + 1}G`;
    }
    return write(out.replace(/\n/g, '\r\n'));
  };

  process.stdin.setRawMode(true);
  process.on('SIGHUP', () => process.exit(129));
  process.stdout.on('resize', () => {
    cols = process.stdout.columns || cols;
    rows = process.stdout.rows || rows;
    void render();
  });
  const quit = async (code: number): Promise<void> => {
    await write(`${erase()}\x1b[?2004l`);
    process.exit(code);
  };

  // Claude Code's hooks, when the agent is told to run them (its session starts first).
  const hooks =
    opts.hooks && opts.settings ? new ClaudeHooks(opts.settings, process.cwd(), opts.resume) : null;
  await hooks?.started();

  await write('\x1b[?2004h');
  logPrompt(opts.log);
  await render([
    '',
    '▗ ▗   ▖ ▖  Claude Code v2.1.29 (fake agent for tests)',
    '           Fake Model · Fake API',
    `  ▘▘ ▝▝    ${process.cwd()}`,
    '',
    '  /model to try a fake model',
    '',
  ]);

  const answer = async (bytes: Buffer): Promise<void> => {
    /** A Stop hook that runs only after the prompt is back (`--hook-lag`). */
    let lagged: (() => void) | null = null;
    busy = true;
    interrupted = false;
    startedAt = Date.now();
    const text = bytes.toString('utf8');
    const echo = visible(text)
      .split('\n')
      .map((l, i) => `${i === 0 ? '❯ ' : '  '}${l}`);
    input = [];
    await render([...echo, '']);
    await hooks?.prompt(text);
    spinner = setInterval(() => {
      frame++;
      void render();
    }, SPINNER_MS);
    await think();
    if (opts.ask && !interrupted) {
      await render([`⏺ Bash(${ASK_COMMAND})`]);
      const index = await new Promise<number>((choose) => {
        asking = { selected: 0, choose };
        void render();
      });
      asking = null;
      logChoice(opts.log, ASK_CHOICES[index]!);
      await render([`  ⎿  Permission: ${ASK_CHOICES[index]!}`, '']);
    }
    for (let k = 1; k <= opts.pieces && !interrupted; k++) {
      if (opts.pieces > 1) await render([`⏺ ${pieceLine(k, opts.pieces)}`, '']);
      if (k < opts.pieces) await gap();
    }
    const edited = applyEdits(opts.edits[answered]);
    const lines = [...edited, ...nthAnswer(opts.replies, answered++, visible(text))];
    if (!interrupted) {
      await render([`⏺ ${lines[0]}`]);
      if (opts.crash) {
        await sleep(50);
        process.exit(3);
      }
      let sent = 0;
      const batch: string[] = [];
      for (let i = 1; sent < opts.big && !interrupted; i++) {
        const line = `  ${bigLine(i)}`;
        sent += line.length + 1;
        batch.push(line);
        if (batch.length >= 200) await render(batch.splice(0));
      }
      await render([...batch, ...lines.slice(1).map((l) => `  ${l}`), '']);
      // The answer as the model gave it (the screen indents and marks it); no Stop on an Esc.
      const said = lines.join('\n');
      if (opts.hookLag > 0)
        lagged = () => setTimeout(() => void hooks?.stop(text, said), opts.hookLag);
      else await hooks?.stop(text, said);
    }
    if (spinner) clearInterval(spinner);
    spinner = null;
    busy = false;
    logPrompt(opts.log);
    const secs = Math.max(1, Math.round((Date.now() - startedAt) / 1000));
    await render(
      interrupted
        ? ['  ⎿  Interrupted · What should Claude do instead?', '']
        : [`✻ Worked for ${secs}s`, ''],
    );
    lagged?.();
    const next = queue.shift();
    if (next) void answer(next);
  };

  /** A key while the permission dialog is shown: moves its cursor or answers it. */
  const dialogKey = (key: ReturnType<KeyParser['feed']>[number]): void => {
    const a = asking!;
    const last = ASK_CHOICES.length - 1;
    if (key.kind === 'up') a.selected = Math.max(0, a.selected - 1);
    else if (key.kind === 'down') a.selected = Math.min(last, a.selected + 1);
    else if (key.kind === 'enter') a.choose(a.selected);
    else if (key.kind === 'escape') a.choose(last);
    else if (key.kind === 'ctrl-c') {
      interrupted = true;
      a.choose(last);
    } else if (key.kind === 'text') {
      // A number picks its choice at once, as in Claude Code.
      const n = Number(key.bytes.toString('utf8'));
      if (Number.isInteger(n) && n >= 1 && n <= ASK_CHOICES.length) a.choose(n - 1);
    }
  };

  const parser = new KeyParser();
  process.stdin.on('data', (chunk: Buffer) => {
    const keys = parser.feed(chunk);
    if (dropInput && keys.some((k) => k.kind === 'text')) {
      dropInput = false;
      resume(opts.dropInputMs);
      return void render();
    }
    if (resuming) return;
    for (const key of keys) {
      if (asking) {
        dialogKey(key);
        continue;
      }
      switch (key.kind) {
        case 'text':
          input.push(key.bytes);
          pasted ||= key.pasted;
          break;
        case 'backspace': {
          const all = [...Buffer.concat(input).toString('utf8')];
          all.pop();
          input = [Buffer.from(all.join(''), 'utf8')];
          break;
        }
        case 'enter': {
          const bytes = Buffer.concat(input);
          if (bytes.length === 0) break;
          if (dropEnter) {
            dropEnter = false;
            resume(opts.dropEnterMs);
            break;
          }
          if (newlineEnters > 0) {
            newlineEnters--;
            input.push(Buffer.from('\n'));
            break;
          }
          logSubmission(opts.log, bytes, pasted);
          pasted = false;
          if (busy) {
            queue.push(bytes);
            input = [];
          } else void answer(bytes);
          continue;
        }
        case 'escape':
        case 'ctrl-c':
          if (busy) interrupted = true;
          else if (key.kind === 'ctrl-c') input = [];
          break;
        case 'ctrl-d':
          if (!busy) void quit(0);
          break;
      }
    }
    void render();
  });
}

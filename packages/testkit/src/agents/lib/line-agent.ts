import { bigLine, nthAnswer, pieceLine } from './answer.js';
import { applyEdits } from './edits.js';
import { logChoice, logPrompt, logSubmission } from './log.js';
import type { AgentOptions } from './options.js';
import { pieceGap } from './piece-gap.js';
import { sleep, write } from './sleep.js';
import { thinkTime } from './think-time.js';

/**
 * The line that ends the block `line` opens, as aider reads it: `{` alone opens a block `}`
 * ends, `{tag` (letters and digits) one `tag}` ends; null for any other line.
 */
function blockClose(line: string): string | null {
  const tag = /^\{([A-Za-z0-9]*)$/u.exec(line)?.[1];
  return tag === undefined ? null : `${tag}}`;
}

/** The command the agent asks to run (`--ask`), its question, and what each answer means. */
const ASK_COMMAND = 'make test';
const ASK_QUESTION = "Run shell command? (Y)es/(N)o/(D)on't ask again [Yes]: ";
const ASK_LETTERS: Record<string, string> = {
  '': 'Yes',
  y: 'Yes',
  n: 'No',
  d: "Don't ask again",
};

/**
 * An aider-style line agent: it reads whole lines in the terminal's canonical mode (the
 * kernel echoes what is typed), prints a banner, and after each answer the `Tokens: …`
 * line, a `────` rule and the prompt `> ` without a newline — as aider 0.8x does.
 */
export async function runLineAgent(opts: AgentOptions): Promise<void> {
  /** Answers given so far (the scripted replies are taken in order). */
  let answered = 0;
  const gap = pieceGap(opts);
  const think = thinkTime(opts);
  const cols = process.stdout.columns || 80;
  const rule = '─'.repeat(cols);
  let interrupted = false;
  let busy = false;
  process.on('SIGINT', () => {
    // Canonical mode: Ctrl-C arrives as SIGINT. Busy: abandon the answer; idle: like aider.
    if (busy) interrupted = true;
    else void write('\n^C again to exit\n> ');
  });
  process.on('SIGHUP', () => process.exit(129));

  await write(
    [
      rule,
      'Aider v0.81.1 (fake agent for tests)',
      'Main model: fake/model-1 with diff edit format, infinite output',
      'Weak model: fake/model-small',
      'Git repo: .git with 12 files',
      'Repo-map: using 4096 tokens, auto refresh',
      rule,
      '',
    ].join('\n'),
  );
  logPrompt(opts.log);
  await write('> ');

  const lines: string[] = [];
  let wake: (() => void) | null = null;
  let partial = '';
  let ended = false;
  process.stdin.setEncoding('utf8');
  process.stdin.on('data', (chunk: string) => {
    partial += chunk;
    let nl: number;
    while ((nl = partial.indexOf('\n')) >= 0) {
      lines.push(partial.slice(0, nl).replace(/\r$/, ''));
      partial = partial.slice(nl + 1);
    }
    wake?.();
  });
  process.stdin.on('end', () => {
    ended = true;
    wake?.();
  });

  const nextLine = async (): Promise<string | undefined> => {
    while (lines.length === 0 && !ended) await new Promise<void>((r) => (wake = r));
    return lines.shift();
  };

  let sent = 8000;
  for (;;) {
    let input = await nextLine();
    if (input === undefined) break;
    const close = blockClose(input);
    if (close !== null) {
      // aider's multi-line input: the lines up to the closing one are one message, each read
      // at its continuation prompt ". " (aider/io.py get_input, without prompt_toolkit).
      let block = '';
      for (;;) {
        await write('. ');
        const line = await nextLine();
        if (line === undefined || line === close) break;
        block += `${line}\n`;
      }
      input = block;
    }
    logSubmission(opts.log, Buffer.from(input, 'utf8'), false);
    if (input.trim() === '') {
      await write('> ');
      continue;
    }
    if (input === '/exit') process.exit(0);
    busy = true;
    interrupted = false;
    await think();
    await write('\n');
    if (opts.ask) {
      // aider's question before it runs a command (corpus: aider multi-line-input).
      await write(`I need to run a command.\n$ ${ASK_COMMAND}\n${ASK_QUESTION}`);
      while (lines.length === 0 && !ended) await new Promise<void>((r) => (wake = r));
      const reply = (lines.shift() ?? '').trim().toLowerCase();
      const label = ASK_LETTERS[reply] ?? ASK_LETTERS.y!;
      logChoice(opts.log, label);
      await write(`Permission: ${label}\n`);
    }
    const edited = applyEdits(opts.edits[answered]);
    const answer = [...edited, ...nthAnswer(opts.replies, answered++, input)];
    for (let k = 1; k <= opts.pieces && !interrupted; k++) {
      if (opts.pieces > 1) await write(`${pieceLine(k, opts.pieces)}\n`);
      if (k < opts.pieces) {
        // A status left on an unterminated line during the pause: not a prompt.
        await write('Waiting for fake/model-1');
        await gap();
        await write('\r\x1b[K');
      }
    }
    if (!interrupted) {
      await write(`${answer[0]}\n`);
      if (opts.crash) {
        await sleep(50);
        process.exit(3);
      }
      let bytes = 0;
      for (let i = 1; bytes < opts.big && !interrupted; i++) {
        const line = `${bigLine(i)}\n`;
        bytes += line.length;
        await write(line);
      }
      for (const line of answer.slice(1)) await write(`${line}\n`);
    } else {
      await write('\n^C KeyboardInterrupt\n');
    }
    sent += input.length;
    const received = answer.join('\n').length;
    await write(
      `\n\nTokens: ${(sent / 1000).toFixed(1)}k sent, ${received} received. ` +
        'Cost: $0.03 message, $0.03 session.\n' +
        `${rule}\n`,
    );
    logPrompt(opts.log);
    await write('> ');
    busy = false;
  }
  process.exit(0);
}

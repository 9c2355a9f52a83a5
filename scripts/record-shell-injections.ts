// Records what real shells and REPLs write to their PTY for injected text + Enter, and writes
// packages/turns/src/fixtures/shell-injections.ts (the echo and prompt-line tests replay it).
// Needs bash, zsh, fish, python3 and node on PATH. Run: npx tsx scripts/record-shell-injections.ts
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pty from 'node-pty';

type Step = [number, 'o' | 'i', string];

/** The first prompt is drawn once output has been quiet this long (and within START_MAX_MS). */
const START_QUIET_MS = 400;
const START_MAX_MS = 15_000;
/** Time between the text and Enter, and for the answer. */
const ENTER_AFTER_MS = 150;
const ANSWER_MS = 400;

const home = mkdtempSync(join(tmpdir(), 'clippy-record-'));
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function record(cmd: string, args: string[], inputs: (string | number)[]): Promise<Step[]> {
  const p = pty.spawn(cmd, args, {
    cols: 80,
    rows: 24,
    cwd: '/tmp',
    env: { PATH: process.env.PATH ?? '', TERM: 'xterm-256color', HOME: home, LANG: 'C.UTF-8' },
  });
  const t0 = Date.now();
  const steps: Step[] = [];
  p.onData((d) => steps.push([Date.now() - t0, 'o', d]));
  for (const until = Date.now() + START_MAX_MS; Date.now() < until;) {
    await sleep(50);
    const last = steps.at(-1);
    if (last && Date.now() - t0 - last[0] >= START_QUIET_MS) break;
  }
  for (const i of inputs) {
    if (typeof i === 'number') await sleep(i);
    else {
      steps.push([Date.now() - t0, 'i', i]);
      p.write(i);
    }
  }
  await sleep(ANSWER_MS);
  p.kill();
  return steps;
}

const paste = (t: string) => `\x1b[200~${t}\x1b[201~`;
const shells: Record<string, [string, string[], string | null, string]> = {
  bash: ['bash', ['--norc', '--noprofile', '-i'], 'true', "printf 'NO-NEWLINE'"],
  zsh: ['zsh', ['-f', '-i'], 'true', "printf 'NO-NEWLINE'"],
  fish: ['fish', ['--no-config', '-i'], 'true', "printf 'NO-NEWLINE'"],
  python: ['python3', ['-i', '-q'], 'x = 1', "print('NO-NEWLINE', end='')"],
  node: ['node', ['-i'], null, "process.stdout.write('NO-NEWLINE')"],
};

let out = `// What real shells and REPLs wrote to their PTY (80x24, TERM=xterm-256color) for injected text
// followed by Enter, as the broker injects it: a bracketed paste (\`paste\`) or the bare text in one
// write (\`typed\`), then \\r ${ENTER_AFTER_MS} ms later. Recorded with node-pty from GNU bash 5.2.15 (--norc),
// zsh 5.9 (-f), fish 3.6 (--no-config), Python 3.11.7 (-i -q) and Node.js 20.20 (-i). Each shell
// first runs a command that prints nothing (not node, which always prints a value), then one that
// prints NO-NEWLINE without a final newline. Written by scripts/record-shell-injections.ts.
import type { Step } from '../test-support/play.js';

export const SHELL_INJECTIONS: Record<string, Step[]> = {
`;
try {
  for (const [name, [cmd, args, silent, noNewline]] of Object.entries(shells)) {
    for (const mode of ['paste', 'typed'] as const) {
      const wrap = mode === 'paste' ? paste : (t: string) => t;
      const inputs: (string | number)[] = [];
      if (silent) inputs.push(wrap(silent), ENTER_AFTER_MS, '\r', ANSWER_MS);
      inputs.push(wrap(noNewline), ENTER_AFTER_MS, '\r');
      out += `  ${name}_${mode}: [\n`;
      for (const step of await record(cmd, args, inputs)) out += `    ${JSON.stringify(step)},\n`;
      out += '  ],\n';
    }
  }
} finally {
  rmSync(home, { recursive: true, force: true });
}
out += '};\n';
writeFileSync(new URL('../packages/turns/src/fixtures/shell-injections.ts', import.meta.url), out);

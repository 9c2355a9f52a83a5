import { describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import { spawnProgram } from '@clippy/testkit/agents/harness';
import { runClippy } from '@clippy/testkit/cli-pty';
import type { TestDaemon } from '@clippy/testkit/daemon';
import { daemonForFile } from '@clippy/testkit/daemon-per-file';

// Issue 44 item 3: a long prompt's echo never becomes the answer. A ~100 KB question, one line
// of words, asked through the real CLI of a shell and a REPL: each answer is exact. (The real
// Claude Code, Codex and Gemini CLI get one in real-agents-life.e2e.test.ts, read from their
// channel and their screen alike, in the sessions that test already runs.) Before, the daemon
// tracked only a paste's first 16 KB, so the engine never saw where the echo ended (Gemini's
// answer began with 75 KB of the question), and the ends of echoes too long for the screen to
// keep (bash's 64 KB of kept input line, Gemini's 1,000 rows of scrollback, Codex's alternate
// screen, Claude's hidden middle) were not found.

let d: TestDaemon;
let c: ClippyClient;
daemonForFile((daemon, client) => ([d, c] = [daemon, client]));

const WORDS = ['alpha', 'bravo', 'charlie', 'delta', 'echo', 'foxtrot', 'golf', 'hotel'];
/** About `kb` KB of numbered words on one line (each differs, so no part of it repeats). */
function words(kb: number): string {
  const out: string[] = [];
  let length = 0;
  for (let i = 0; length < kb * 1024; i++) {
    const word = `${WORDS[i % WORDS.length]}${i}`;
    out.push(word);
    length += word.length + 1;
  }
  return out.join(' ');
}

/** Sent through `ask S -` (standard input), as a prompt this long is given in a script. */
async function ask(session: string, text: string, timeoutS: number) {
  return runClippy(
    ['ask', session, '-', '--timeout', String(timeoutS)],
    d.env.env,
    (timeoutS + 30) * 1000,
    text,
  );
}

describe('a ~100 KB one-line prompt: the answer holds no echo of it', () => {
  it('bash: the output of `echo <100 KB>` is the words, once', async () => {
    await spawnProgram(d, c, 'sh100', 'bash', 'bash', ['--norc', '--noprofile', '-i']);
    const text = words(100);
    const r = await ask('sh100', `echo ${text}`, 60);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${text}\n`);
  });

  it('python: the answer to `len("<100 KB>")` is the number alone', async () => {
    await spawnProgram(d, c, 'py100', 'python', 'python3', ['-i', '-q']);
    const text = words(100);
    const r = await ask('py100', `len('${text}')`, 60);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe(`${text.length}\n`);
  });
});

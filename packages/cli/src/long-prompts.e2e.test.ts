import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import { spawnProgram } from '@clippy/testkit/agents/harness';
import { runClippy } from '@clippy/testkit/cli-pty';
import type { TestDaemon } from '@clippy/testkit/daemon';
import { daemonForFile } from '@clippy/testkit/daemon-per-file';
import { startFakeModel, type FakeModel } from '@clippy/testkit/fake-model/server';
import { agentsMissing, REAL_AGENTS } from '@clippy/testkit/real-agents';
import {
  screenOf,
  startRealAgent,
  untilListed,
  type RealAgentSession,
} from '@clippy/testkit/real-agent-session';

// Issue 44 item 3: a long prompt's echo never becomes the answer. A ~100 KB question, one line
// of words, asked through the real CLI of a shell, a REPL, and the real Claude Code, Codex and
// Gemini CLI against the fake model: each answer is exact, read from the agent's channel and
// from its screen alike. Before, the daemon tracked only a paste's first 16 KB, so the engine
// never saw where the echo ended (Gemini's answer began with 75 KB of the question), and the
// ends of echoes too long for the screen to keep (bash's 64 KB of kept input line, Gemini's
// 1,000 rows of scrollback, Codex's alternate screen, Claude's hidden middle) were not found.

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

/** A real agent's answer to a 100 KB question can take a minute on a loaded 2-core machine. */
const AGENT_ASK_TIMEOUT_S = 240;
const AGENT_TEST_MS = 420_000;

const missing = agentsMissing(...REAL_AGENTS);
if (missing) console.warn(`real agent e2e tests ${missing}`);

describe.skipIf(missing !== null)(
  'a ~100 KB question to the real Claude Code, Codex and Gemini CLI',
  () => {
    let model: FakeModel;
    const started: RealAgentSession[] = [];

    beforeAll(async () => {
      model = await startFakeModel({
        respond: (r) => ({
          kind: 'text',
          text: `Answer to a question of ${(r.userText ?? '').length} characters.`,
        }),
      });
    });

    afterAll(async () => {
      await model?.close();
      for (const s of started) s.dispose();
    });

    // One session per agent, all three at once: their minutes overlap instead of adding up.
    for (const agent of REAL_AGENTS) {
      it.concurrent(
        `${agent}: the answer is exact from its channel and from its screen, and the model got the question whole`,
        async () => {
          const a = await startRealAgent(d, c, agent, model, { name: `${agent}-long` });
          started.push(a);
          await untilListed(d.env.env, a.name, ['idle']);
          const question = `${words(100)} What is the count?`;
          const answer = `Answer to a question of ${question.length} characters.`;
          const r = await ask(a.name, question, AGENT_ASK_TIMEOUT_S);
          const shown = r.code === 0 ? '' : await screenOf(d.env.env, a.name);
          expect(r.stderr + shown).toBe('');
          expect(r.code).toBe(0);
          expect(r.stdout.trim()).toBe(answer);
          expect(a.conversation().map((q) => q.userText)).toEqual([question]);
          // The text read off the screen (what a session without its channel answers).
          const screen = await runClippy(['show', a.name, '--screen'], d.env.env);
          expect(screen.code).toBe(0);
          expect(screen.stdout.trim()).toBe(answer);
        },
        AGENT_TEST_MS,
      );
    }
  },
);

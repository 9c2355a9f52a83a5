import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import { spawnProgram, waitState } from '@clippy/testkit/agents/harness';
import { runClippy } from '@clippy/testkit/cli-pty';
import type { TestDaemon } from '@clippy/testkit/daemon';
import { daemonForFile } from '@clippy/testkit/daemon-per-file';
import { programMissing } from '@clippy/testkit/requirements';

// Answers hold only the answer (issue 12 item 4), through the real CLI against real python3,
// node, bash, fish and less: multi-line input to a REPL, a command longer than the terminal
// is wide, an interrupted ask, and keys typed into a full-screen program.

let d: TestDaemon;
let c: ClippyClient;
daemonForFile((daemon, client) => ([d, c] = [daemon, client]));

const ask = (session: string, text: string, ...more: string[]) =>
  runClippy(['ask', session, text, '--timeout', '20', ...more], d.env.env);

/** A command of about 2,000 characters whose answer is short (so any echo fragment shows). */
const LONG_TAIL = Array.from({ length: 600 }, (_, i) => `c${i}`)
  .join(' ')
  .slice(0, 1980);

describe('answers hold only the answer', () => {
  it('python: a multi-line block and a call after it answer with the call’s output alone', async () => {
    await spawnProgram(d, c, 'py', 'python', 'python3', ['-i', '-q']);
    const r = await ask('py', 'def f(x):\n    return x*3\n\nprint(f(2))');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('6\n');
    const { turns } = await c.request('list_turns', { session: 'py' });
    // The definition printed nothing (no turn); the call is the one turn, its input its prompt.
    expect(turns.map((t) => t.prompt)).toEqual(['print(f(2))']);
  });

  it('node: a multi-line function and a call answer with the call’s value alone', async () => {
    await spawnProgram(d, c, 'nd', 'node', process.execPath, ['-i']);
    const r = await ask('nd', 'function f(x) {\n  return x*3\n}\nf(2)\n');
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('6\n');
  });

  it('bash: a pasted command of 2,000 characters on 80 columns leaves no wrapped fragment', async () => {
    // Readline highlights a paste (its active region) and redraws it after Enter from the
    // second wrapped row up: set here as bash 5.2 does by default on a colour terminal.
    const inputrc = join(d.env.root, 'inputrc');
    writeFileSync(inputrc, 'set enable-bracketed-paste on\nset enable-active-region on\n');
    // Started as a user does; without a terminal, `new -d` gives the session 80 columns.
    const started = await runClippy(
      ['new', '-d', '--name', 'b', '--preset', 'bash', '--', 'bash', '--norc', '--noprofile', '-i'],
      { ...d.env.env, INPUTRC: inputrc },
    );
    expect(started.code).toBe(0);
    await waitState(c, 'b', 'idle', 15_000);
    // A line break makes it a bracketed paste, which readline redraws over its wrapped rows.
    const r = await ask('b', `echo $(( 6*7 )) # ${LONG_TAIL}\n`);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('42\n');
  });

  it.skipIf(programMissing('fish') !== null)(
    'fish: a typed command of 2,000 characters on 80 columns answers with its output alone',
    async () => {
      await spawnProgram(d, c, 'f', 'fish', 'fish', ['--no-config', '-i']);
      const words = Array.from({ length: 500 }, (_, i) => `w${i}`)
        .join(' ')
        .slice(0, 1995)
        .trimEnd();
      const r = await ask('f', `echo ${words}`);
      expect(r.stderr).toBe('');
      expect(r.code).toBe(0);
      expect(r.stdout).toBe(`${words}\n`);
    },
  );

  it('an interrupted ask says so and exits 130; its text holds neither the command nor ^C', async () => {
    await spawnProgram(d, c, 'int', 'bash', 'bash', ['--norc', '--noprofile', '-i']);
    const asked = ask('int', 'sleep 30');
    await waitState(c, 'int', 'busy');
    const keys = await runClippy(['send', 'int', '--keys', 'C-c'], d.env.env);
    expect(keys.code).toBe(0);
    const r = await asked;
    expect(r.code).toBe(130);
    expect(r.stderr).toMatch(/interrupted/);
    expect(r.stdout).not.toContain('sleep 30');
    expect(r.stdout).not.toContain('^C');
    const meta = await runClippy(['show', 'int', '--meta'], d.env.env);
    expect(meta.stdout).toMatch(/interrupted: true/);
  });

  it.skipIf(programMissing('less') !== null)(
    'keys typed into less are no turn’s prompt, and its lines ending in "$ " are no prompt',
    async () => {
      // Every line ends like a bash prompt: a line detector that read less's screen would
      // end the turn inside it and take the next keys for a new command.
      const lines = Array.from({ length: 200 }, (_, i) => `line ${i} $ `).join('\n');
      writeFileSync(join(d.env.root, 'dollars.txt'), `${lines}\n`);
      await spawnProgram(d, c, 'lb', 'bash', 'bash', ['--norc', '--noprofile', '-i']);
      const sent = await runClippy(['send', 'lb', 'less dollars.txt', '--enter'], d.env.env);
      expect(sent.code).toBe(0);
      const busyOrWaiting = async () => {
        const { sessions } = await c.request('list_sessions', {});
        return sessions.find((s) => s.name === 'lb')!.state;
      };
      for (const keys of [['/', 'l', 'i', 'n', 'e', ' ', '5', 'Enter'], ['Space'], ['g']]) {
        const r = await runClippy(['send', 'lb', '--keys', ...keys], d.env.env);
        expect(r.code).toBe(0);
        // Fixed: that it does not turn idle cannot be awaited; a prompt the keys made would be
        // read as idle within this.
        await new Promise((res) => setTimeout(res, 300));
        // less waits for keys: never idle (no prompt is shown) while it runs.
        expect(await busyOrWaiting()).not.toBe('idle');
      }
      await runClippy(['send', 'lb', '--keys', 'q'], d.env.env);
      await waitState(c, 'lb', 'idle');
      const after = await ask('lb', 'echo after-less');
      expect(after.stdout).toBe('after-less\n');
      const { turns } = await c.request('list_turns', { session: 'lb' });
      const prompts = turns.map((t) => t.prompt);
      expect(prompts).toContain('echo after-less');
      for (const p of prompts) expect(['less dollars.txt', 'echo after-less']).toContain(p);
    },
  );
});

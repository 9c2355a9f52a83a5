import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import { stripAnsi } from '@clippy/turns';
import { spawnAgent, spawnProgram, tuiAnswerText, waitState } from '@clippy/testkit/agents/harness';
import { CliPty, runClippy } from '@clippy/testkit/cli-pty';
import type { TestDaemon } from '@clippy/testkit/daemon';
import { daemonForFile } from '@clippy/testkit/daemon-per-file';
import { installed } from '@clippy/testkit/installed';
import { seededRandom } from '@clippy/testkit/random';
import { until } from '@clippy/testkit/until';
import { programMissing } from '@clippy/testkit/requirements';

// Text injected into real shells and REPLs (the turn contract, issue 11 items 5 and 6): the
// echo of the input is never turn content, a command that prints nothing makes no turn, and
// output left without a final newline is part of the answer, byte for byte.

let d: TestDaemon;
let c: ClippyClient;
daemonForFile((daemon, client) => ([d, c] = [daemon, client]));

async function send(name: string, text: string): Promise<void> {
  const sent = await c.request('send', { session: name, text, enter: true });
  expect(sent.submitted).toBe(true);
}

/** Resolves once the session has gone busy and then idle again, after this call. */
async function backToIdle(name: string): Promise<void> {
  await c.request('subscribe', { events: ['state_changed'], sessions: [name] });
  let busy = false;
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => {
      off();
      reject(new Error(`${name} did not go busy and back to idle`));
    }, 15_000);
    const off = c.on('state_changed', (e) => {
      if (e.name !== name) return;
      if (e.state === 'busy') busy = true;
      else if (e.state === 'idle' && busy) {
        clearTimeout(timer);
        off();
        resolve();
      }
    });
  });
}

async function nextTurn(name: string, after: number) {
  const { turn } = await c.request(
    'wait_turn',
    { session: name, after: `${name}:${after}`, timeout_ms: 20_000 },
    { timeoutMs: 0 },
  );
  return turn;
}

const decode = (b: Uint8Array): string => new TextDecoder().decode(b);

const SHELLS: [string, string, string[], string | null, string, string][] = [
  // name, preset, command, args, a command printing nothing, one printing without newline, its answer
  ['bash', 'bash', ['--norc', '--noprofile', '-i'], 'true', "printf 'NO-NEWLINE'", 'NO-NEWLINE'],
  ['zsh', 'zsh', ['-f', '-i'], 'true', "printf 'NO-NEWLINE'", 'NO-NEWLINE'],
  ['fish', 'fish', ['--no-config', '-i'], 'true', "printf 'NO-NEWLINE'", 'NO-NEWLINE'],
  ['python3', 'python', ['-i', '-q'], 'x = 1', "print('NO-NEWLINE', end='')", 'NO-NEWLINE'],
  [process.execPath, 'node', ['-i'], null, "process.stdout.write('NO-NEWLINE')", 'NO-NEWLINEtrue'],
].map(([cmd, preset, args, silent, loud, answer]) => [
  preset as string,
  cmd as string,
  args as string[],
  silent as string | null,
  loud as string,
  answer as string,
]);

describe('injected text into real shells under the daemon', () => {
  for (const [preset, cmd, args, silent, loud, answer] of SHELLS) {
    const name = `sh-${preset}`;
    it.skipIf(programMissing(cmd) !== null)(
      `${preset}: no turn for a silent command, no echo in the turn, the unterminated answer kept`,
      async () => {
        await spawnProgram(d, c, name, preset, cmd, args);
        if (silent) {
          // Detection runs in a worker: wait until it has seen the command run and the prompt
          // come back (busy, then idle), not merely a state that is still idle from before.
          const back = backToIdle(name);
          await send(name, silent);
          await back;
        }
        await send(name, loud);
        const turn = await nextTurn(name, 0);
        // Turn 1: the silent command made none.
        expect(turn.seq).toBe(1);
        expect(turn.prompt).toBe(loud);
        expect(turn.text).toBe(answer);
        expect(stripAnsi(turn.content).trim()).toBe(answer);
        // fish sets the window title to the command (an OSC string): not shown, not the echo.
        expect(decode(turn.content).replace(OSC, '')).not.toContain(loud);
        const { turns } = await c.request('list_turns', { session: name });
        expect(turns).toHaveLength(1);
      },
    );
  }
  for (const missing of SHELLS.filter(([, cmd]) => !installed(cmd))) {
    it.skip(`${missing[0]}: not installed here (.ci/run installs zsh and fish)`, () => {});
  }

  it('bash through the CLI: send --enter of `true` stores no turn; ask of printf NO-NEWLINE prints exactly it', async () => {
    await spawnProgram(d, c, 'b', 'bash', 'bash', ['--norc', '--noprofile', '-i']);
    const sent = await runClippy(['send', 'b', 'true', '--enter'], d.env.env);
    expect(sent.code).toBe(0);
    await waitState(c, 'b', 'idle');
    const none = await runClippy(['turns', 'b', '--json'], d.env.env);
    expect(JSON.parse(none.stdout)).toEqual([]);
    const r = await runClippy(['ask', 'b', "printf 'NO-NEWLINE'", '--timeout', '20'], d.env.env);
    expect(r.stderr).toBe('');
    expect(r.code).toBe(0);
    expect(r.stdout).toBe('NO-NEWLINE\n');
    const raw = await runClippy(['show', 'b:1', '--raw'], d.env.env);
    // --raw starts after the echo: the shell's own output (readline's mode switch), then the answer.
    expect(raw.stdout).not.toContain('printf');
    expect(stripAnsi(raw.stdout).trim()).toBe('NO-NEWLINE');
  });

  it('bash: a 1 MiB answer without a final newline is complete, byte for byte', async () => {
    const rand = seededRandom(11);
    const lines: string[] = [];
    let size = 0;
    while (size < 1024 * 1024) {
      const n = 20 + Math.floor(rand() * 100);
      const line = Array.from({ length: n }, () =>
        String.fromCharCode(33 + Math.floor(rand() * 94)),
      ).join('');
      lines.push(line);
      size += n + 1;
    }
    const body = lines.join('\n'); // no final newline
    writeFileSync(join(d.env.root, 'big.txt'), body);
    await spawnProgram(d, c, 'big', 'bash', 'bash', ['--norc', '--noprofile', '-i']);
    await send('big', 'cat big.txt');
    const turn = await nextTurn('big', 0);
    expect(turn.truncated).toBe(false);
    // The terminal turns each \n into \r\n; the rest is exactly the file.
    const expected = body.replace(/\n/gu, '\r\n');
    const content = decode(turn.content);
    expect(content.endsWith(expected)).toBe(true);
    expect(stripAnsi(content).replace(/^\r/u, '')).toBe(expected);
    expect(turn.text).toBe(body);
  });

  it('TUI fake agent (claude preset): the echo of injected text is not in the answer', async () => {
    await spawnAgent(d, c, 'tui', 'claude', 'claude');
    const q = 'what is the echo rule';
    await send('tui', q);
    const turn = await nextTurn('tui', 0);
    expect(turn.text).toBe(tuiAnswerText(q));
  });
});

describe('a command recalled with ↑ in a real shell, typed by a user in clippy attach', () => {
  const RECALLED = 'echo recalled | tr a-z A-Z';
  for (const [preset, cmd, args] of SHELLS.filter(([p]) => ['bash', 'zsh', 'fish'].includes(p))) {
    const name = `up-${preset}`;
    it.skipIf(programMissing(cmd) !== null)(
      `${preset}: the turn's prompt is the line Enter ran, not the keys (none, or a few)`,
      async () => {
        await spawnProgram(d, c, name, preset, cmd, args);
        const user = CliPty.clippy(['attach', name], { env: d.env.env, cols: 80, rows: 24 });
        try {
          await user.waitFor(/\S/u);
          user.write(`${RECALLED}\r`);
          expect(await nextTurn(name, 0)).toMatchObject({ prompt: RECALLED, text: 'RECALLED' });
          const shown = () =>
            user
              .screenText()
              .split('\n')
              .filter((l) => l.includes(RECALLED));
          const before = shown().length;
          // ↑ recalls the line (the keys hold no text), Enter runs it.
          user.write('\x1b[A');
          await until(() => shown().length > before, 'the shell shows the recalled line');
          user.write('\r');
          expect(await nextTurn(name, 1)).toMatchObject({ prompt: RECALLED, text: 'RECALLED' });
          // ↑, three backspaces and a word: the keys hold only the word.
          const again = shown().length;
          user.write('\x1b[A');
          await until(() => shown().length > again, 'the shell shows the recalled line again');
          user.write('\x7f\x7f\x7fa-z\r');
          expect(await nextTurn(name, 2)).toMatchObject({
            prompt: 'echo recalled | tr a-z a-z',
            text: 'recalled',
          });
        } finally {
          await user.dispose();
        }
      },
    );
  }
});

const OSC = /\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)/gu;

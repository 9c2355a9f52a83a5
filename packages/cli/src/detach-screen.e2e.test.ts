import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { agentCommand } from '@clippy/testkit/agents/index';
import { CliPty, runClippy } from '@clippy/testkit/cli-pty';
import { TestDaemon } from '@clippy/testkit/daemon';

// End-to-end: the real clippyd, the real `clippy` in a real PTY, and the fake Claude Code
// (needs `npm run build`). Leaving a session's screen keeps what the app drew readable.

/** Per test: a daemon, an agent and an attached terminal on a loaded 2-core CI box. */
const E2E_TIMEOUT_MS = 60_000;

let daemon: TestDaemon;
let env: NodeJS.ProcessEnv;
const ptys: CliPty[] = [];

beforeEach(async () => {
  daemon = await TestDaemon.start();
  env = daemon.env.env;
}, E2E_TIMEOUT_MS);

afterEach(async () => {
  for (const p of ptys.splice(0)) await p.dispose();
  await daemon.stop();
}, E2E_TIMEOUT_MS);

describe('leaving an attached session', { timeout: E2E_TIMEOUT_MS }, () => {
  it('detaching from a main-screen TUI prints the notice below its footer, not over its input line', async () => {
    // Claude Code 2.1 keeps the cursor in its input line, the rule and footer below it.
    const claude = agentCommand('claude', ['--cursor-in-box']);
    const r = await runClippy(
      ['new', '-d', '--name', 'cl', '--', claude.command, ...claude.args],
      env,
    );
    expect(r.code).toBe(0);
    // What runs after clippy in the user's shell: its next line must not land on the app either.
    const p = CliPty.shell('$CLIPPY attach cl; echo "after-rc=$?"; sleep 300', {
      env,
      cols: 80,
      rows: 24,
    });
    ptys.push(p);
    await p.waitFor('? for shortcuts');
    p.write('hello');
    await p.waitFor('❯ hello');
    expect(p.cursor.alternate).toBe(false);
    p.write('\x1d');
    await p.waitFor('after-rc=0');
    const screen = p.screen();
    const input = screen.findIndex((l) => l.startsWith('❯ hello'));
    const footer = screen.findIndex((l) => l.includes('? for shortcuts'));
    const notice = screen.indexOf('[detached from cl]');
    const after = screen.indexOf('after-rc=0');
    // The app's input line and footer are intact; the notice and the shell's next line follow.
    expect(input).toBeGreaterThanOrEqual(0);
    expect(screen[input + 1]).toMatch(/^─+$/);
    expect(footer).toBe(input + 2);
    expect(notice).toBeGreaterThan(footer);
    expect(after).toBe(notice + 1);
  });

  it('a detach from a shell puts the notice on a line of its own, not after the prompt', async () => {
    const r = await runClippy(
      ['new', '-d', '--name', 'sh', '--', 'bash', '--norc', '--noprofile'],
      { ...env, PS1: 'IN$ ' },
    );
    expect(r.code).toBe(0);
    const p = CliPty.shell('$CLIPPY attach sh; echo "after-rc=$?"; sleep 300', { env });
    ptys.push(p);
    await p.waitFor('IN$');
    p.write('echo typed-$((2*21))\r');
    await p.waitFor('typed-42');
    await p.waitFor(/typed-42\n+IN\$/);
    p.write('\x1d');
    await p.waitFor('after-rc=0');
    // Not after the prompt it was typed at: on a line of its own, at the bottom (dtach's way:
    // the session's lines scroll up, into the terminal's scrollback if need be).
    const screen = p.screen();
    expect(screen.filter((l) => l.includes('[detached'))).toEqual(['[detached from sh]']);
    const notice = screen.indexOf('[detached from sh]');
    expect(screen[notice + 1]).toBe('after-rc=0');
  });
});

import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import { spawnAgent, submissions } from '@clippy/testkit/agents/harness';
import { runClippy } from '@clippy/testkit/cli-pty';
import { DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';

// `clippy revive gemini -d && clippy ask gemini …`: a freshly resumed Gemini CLI 0.61 draws its
// input box, then loads the chat ("Resuming session..." in its place) and drops the keys it
// reads meanwhile. Under load the ask's Enter came then: its box came back holding the text,
// and the ask waited on for its whole timeout ("the message was still being typed in"). The fake
// Claude Code `--drop-enter MS` does the same with its first Enter; `--drop-input MS` with its
// first paste (the box comes back empty), under a preset that knows its loading screen as the
// gemini preset knows Gemini CLI's.

/** An ask whose first Enter is dropped (its box gone, then back), on a loaded machine. */
const ASK_MS = 60_000;

let d: TestDaemon;
let c: ClippyClient;

/** The fake Claude Code's preset, with the loading marker of the gemini preset. */
const LOADING_PRESET = {
  'claude-loading': { extends: 'claude', loading: ['^\\S Resuming session\\.\\.\\.$'] },
};

beforeAll(async () => {
  const env = new DaemonEnv();
  const config = path.join(env.env.XDG_CONFIG_HOME!, 'clippy');
  fs.mkdirSync(config, { recursive: true });
  fs.writeFileSync(path.join(config, 'presets.json'), JSON.stringify(LOADING_PRESET));
  d = await TestDaemon.start({ env });
  c = await d.connect();
}, ASK_MS);

afterAll(async () => {
  await c?.close();
  await d?.stop();
}, ASK_MS);

describe('an agent that drops the Enter while its box is gone', { timeout: ASK_MS }, () => {
  it('gets Enter again once the box is back holding the text: answered, submitted once', async () => {
    // Longer than the first wait for the Enter to be taken (INJECT_TAKEN_MS, 5 s): the ask then
    // finds the box gone from a screen that says nothing, as with Gemini CLI resuming a chat.
    const log = await spawnAgent(d, c, 'resuming', 'claude', 'claude', ['--drop-enter', '7000']);
    const r = await runClippy(
      ['ask', 'resuming', 'asked while it loads its chat', '--timeout', '40'],
      d.env.env,
      ASK_MS,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('ANSWER: asked while it loads its chat');
    expect(submissions(log).map((s) => s.text)).toEqual(['asked while it loads its chat']);
  });

  it('types again a paste it dropped while loading (its box back empty): answered, submitted once', async () => {
    const log = await spawnAgent(d, c, 'loading', 'claude', 'claude-loading', [
      '--drop-input',
      '3000',
    ]);
    const r = await runClippy(
      ['ask', 'loading', 'pasted while it loads its chat', '--timeout', '40'],
      d.env.env,
      ASK_MS,
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toContain('ANSWER: pasted while it loads its chat');
    expect(submissions(log).map((s) => s.text)).toEqual(['pasted while it loads its chat']);
  });
});

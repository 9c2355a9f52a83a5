import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ClippyClient } from '@clippy/client';
import type { SessionInfo } from '@clippy/protocol';
import { agentCommand } from '@clippy/testkit/agents/index';
import { answerText, waitChannelLive, waitState } from '@clippy/testkit/agents/harness';
import { runClippy } from '@clippy/testkit/cli-pty';
import { DAEMON_READY_TIMEOUT_MS, TestDaemon } from '@clippy/testkit/daemon';

// Issue 44 item 2: a preset never breaks the user's command line. With the fake Claude Code
// (it runs the hooks clippy wires): started through `bash -lc`, its channel is wired inside the
// script; started through a wrapper clippy cannot see through, the command runs as given, its
// turns come from the screen, and `ls --json` and `doctor` say why. (real-agents-life.e2e.test.ts
// starts the real agents through `env` and `bash -lc`.)

let d: TestDaemon;
let c: ClippyClient;
beforeAll(async () => {
  d = await TestDaemon.start();
  c = await d.connect();
}, 2 * DAEMON_READY_TIMEOUT_MS);
afterAll(async () => {
  await c?.close();
  await d?.stop();
});

const clippy = (args: string[]) => runClippy(args, d.env.env);
/** One word for a shell script (single-quoted). */
const quoted = (w: string) => `'${w.replace(/'/g, `'\\''`)}'`;

async function listed(name: string): Promise<SessionInfo> {
  const { sessions } = await c.request('list_sessions', {});
  return sessions.find((x) => x.name === name)!;
}

/** A fake agent started and asked, with a few CLI runs, on a loaded machine: a deadline only. */
const SCENARIO_MS = 120_000;

describe('a preset and the command line it runs', { timeout: SCENARIO_MS }, () => {
  it('through `bash -lc`, the channel is wired inside the script: the agent’s own answer', async () => {
    const { command, args } = agentCommand('claude', ['--hooks']);
    const script = [command, ...args].map(quoted).join(' ');
    const r = await clippy([
      'new',
      '-d',
      '--name',
      'sh',
      '--cwd',
      d.env.root,
      '--preset',
      'claude',
      '--',
      'bash',
      '-lc',
      script,
    ]);
    expect(r.code, r.stderr).toBe(0);
    await waitState(c, 'sh', 'idle');
    await waitChannelLive(c, 'sh');
    const asked = await clippy(['ask', 'sh', 'through bash']);
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stdout).toBe(`${answerText('through bash')}\n`);
    const { turn } = await c.request('get_turn', { session: 'sh' });
    expect(turn.text_source).toBe('agent');
  });

  it('through a wrapper it cannot see through, the command runs as given, read from the screen, and says why', async () => {
    const { command, args } = agentCommand('claude');
    const wrapper = path.join(d.env.root, 'wrapper.sh');
    fs.writeFileSync(wrapper, `exec ${[command, ...args].map(quoted).join(' ')} "$@"\n`);
    const r = await clippy([
      'new',
      '-d',
      '--name',
      'wrapped',
      '--cwd',
      d.env.root,
      '--preset',
      'claude',
      '--',
      'sh',
      wrapper,
    ]);
    expect(r.code, r.stderr).toBe(0);
    await waitState(c, 'wrapped', 'idle');
    const s = await listed('wrapped');
    expect(s.args).toEqual([wrapper]);
    expect(s).toMatchObject({ agent: 'claude', agent_channel: 'off' });
    expect(s.channel_note).toContain('sh runs no -c command');
    const asked = await clippy(['ask', 'wrapped', 'through a wrapper']);
    expect(asked.code, asked.stderr).toBe(0);
    expect(asked.stdout).toContain('ANSWER: through a wrapper');
    const doctor = await clippy(['doctor', '--json']);
    const checks = (
      JSON.parse(doctor.stdout) as { checks: { name: string; status: string; detail: string }[] }
    ).checks;
    const channels = checks.find((x) => x.name === 'channels');
    expect(channels?.status).toBe('warn');
    expect(channels?.detail).toContain('wrapped (claude) reads its turns from the screen');
  });
});

import { tmpdir } from 'node:os';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { childEnv, startTestBroker, type TestBroker } from '../test-support/fixtures.js';
import { STARTING_WITHOUT_PROMPT_MS } from './input-wait.js';

// A program that prints and never shows a prompt (a build, a server, `tail -f`) is running, not
// starting: `starting` is for the time before a first prompt that is on its way.

/** Past the grace, on a loaded machine. */
const STATE_TIMEOUT_MS = STARTING_WITHOUT_PROMPT_MS + 15_000;

let tb: TestBroker;
beforeEach(async () => {
  tb = await startTestBroker();
});
afterEach(async () => {
  await tb.stop();
});

describe('a program that prints without a prompt', { timeout: 60_000 }, () => {
  it('is busy after the grace, not starting; blocked when it then waits on a read; ready at a late prompt', async () => {
    const c = await tb.client();
    await c.ok('subscribe', { events: ['state_changed'] });
    const spawned = await c.ok('spawn', {
      command: 'sh',
      args: [
        '-c',
        // Prints, works a while with no prompt, then waits for a line, then shows a prompt.
        'echo building; sleep 6; echo linking; read x; printf "done\\n$ "; sleep 60',
      ],
      name: 'build',
      env: childEnv(),
      cwd: tmpdir(),
    });
    const states = () =>
      c.messages
        .filter((m) => m.type === 'state_changed' && m.session === spawned.session)
        .map((m) => m.state as string);
    await c.waitFor(
      (m) => m.type === 'state_changed' && m.session === spawned.session && m.state === 'busy',
      STATE_TIMEOUT_MS,
    );
    await c.waitFor(
      (m) => m.type === 'state_changed' && m.session === spawned.session && m.state === 'blocked',
      STATE_TIMEOUT_MS,
    );
    await c.ok('send', { session: 'build', text: 'go', enter: true });
    await c.waitFor(
      (m) => m.type === 'state_changed' && m.session === spawned.session && m.state === 'idle',
      STATE_TIMEOUT_MS,
    );
    expect(states().slice(0, 2)).toEqual(['busy', 'blocked']);
    expect(states().at(-1)).toBe('idle');
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { childEnv, startTestBroker, type TestBroker } from '../test-support/fixtures.js';

let tb: TestBroker | null = null;
/** The clipboard variables of this process, put back after each test. */
const saved = { DISPLAY: process.env.DISPLAY, WAYLAND_DISPLAY: process.env.WAYLAND_DISPLAY };
afterEach(async () => {
  await tb?.stop();
  tb = null;
  for (const [k, v] of Object.entries(saved)) {
    if (v === undefined) delete process.env[k];
    else process.env[k] = v;
  }
});

/** Without a display no clipboard tool is usable on Linux: the broker falls back to OSC 52. */
function noDisplay(): void {
  delete process.env.DISPLAY;
  delete process.env.WAYLAND_DISPLAY;
}

const OSC52 = (text: string) => `\x1b]52;c;${Buffer.from(text).toString('base64')}\x07`;

describe('deliver to the clipboard without a clipboard tool', () => {
  it('writes OSC 52 once to each attached client, as output of a session it shows', async () => {
    noDisplay();
    tb = await startTestBroker();
    const control = await tb.client();
    const viewer = await tb.client();
    const other = await tb.client();
    const idle = await tb.client();
    viewer.autoAck = true;
    other.autoAck = true;
    const spawnCat = async (name: string) =>
      (await control.ok('spawn', { command: 'cat', name, env: childEnv() })).session as string;
    const first = await spawnCat('first');
    const second = await spawnCat('second');
    // The viewer shows both sessions; the other client only the second; `idle` none.
    await viewer.ok('attach', { session: first });
    await viewer.ok('attach', { session: second });
    await other.ok('attach', { session: second });
    await control.ok('put_buffer', { text: 'copied text', label: 'note' });

    const r = await control.ok('deliver', { sink: 'clipboard' });
    expect(r).toMatchObject({ size: 'copied text'.length, turn_id: 'note' });
    const seq = OSC52('copied text');
    // The pushes went out before the deliver response: a round trip on each client comes after them.
    for (const c of [viewer, other, idle]) await c.ok('list_sessions');
    expect(viewer.output(first).includes(seq)).toBe(true);
    expect(other.output(second).includes(seq)).toBe(true);
    expect(viewer.output(second).includes(seq)).toBe(false);
    expect(idle.messages.some((m) => m.type === 'output')).toBe(false);
    expect(control.messages.some((m) => m.type === 'output')).toBe(false);
  });

  it('fails naming OSC 52 when no client is attached', async () => {
    noDisplay();
    tb = await startTestBroker();
    const c = await tb.client();
    await c.ok('put_buffer', { text: 't', label: 'l' });
    const r = await c.request('deliver', { sink: 'clipboard' });
    expect(r).toMatchObject({ status: 'error', error: 'clipboard_failed' });
    expect(r.message).toMatch(/osc52: no client is attached/);
  });
});

import { afterEach, describe, expect, it } from 'vitest';
import { startTestBroker, type TestBroker } from '../test-support/fixtures.js';

let tb: TestBroker | null = null;
afterEach(async () => {
  await tb?.stop();
  tb = null;
});

describe('put_buffer', () => {
  it('refuses NUL and control characters in the label (it becomes a turn ID)', async () => {
    tb = await startTestBroker();
    const c = await tb.client();
    for (const label of [
      'bad\u0000label',
      'esc\u001b[31m',
      'line\nbreak',
      'c1\u009bx',
      'del\u007f',
    ]) {
      const r = await c.request('put_buffer', { text: 't', label });
      expect(r).toMatchObject({ status: 'error', error: 'invalid_message' });
      expect(r.message).toMatch(/label.*control characters/);
    }
    expect(tb.broker.relayBuffer).toBeNull();
    const ok = await c.ok('put_buffer', { text: 't', label: 'report: ünïcode ok' });
    expect(ok.turn_id).toBe('report: ünïcode ok');
  });
});

import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { tmpdir } from 'node:os';
import {
  HelloAckSchema,
  PUSH_SCHEMAS,
  RESULT_SCHEMAS,
  ResponseSchema,
  isPushType,
} from '@clippy/protocol';
import { childEnv, startTestBroker, type TestBroker } from './test-support/fixtures.js';

let tb: TestBroker;
beforeEach(async () => {
  tb = await startTestBroker();
});
afterEach(async () => {
  await tb.stop();
});

describe('conformance', () => {
  it('every response and push the broker sends matches the protocol schemas', async () => {
    const c = await tb.client();
    await c.ok('subscribe', {});
    const results: [keyof typeof RESULT_SCHEMAS, Record<string, unknown>][] = [];
    const call = async (
      type: keyof typeof RESULT_SCHEMAS,
      fields: Record<string, unknown> = {},
    ) => {
      const r = await c.ok(type, fields);
      results.push([type, r]);
      return r;
    };
    // Lives until the input below ends its line, however long a busy machine takes to get
    // there (a 2 s sleep ran out once under load: the input then found it exited).
    const s = await call('spawn', {
      command: 'sh',
      args: ['-c', 'read line; echo "hi $line"'],
      env: childEnv(),
      cwd: tmpdir(),
    });
    await call('attach', { session: s.session, cols: 90, rows: 20 });
    await call('resize', { session: s.session, cols: 91, rows: 21 });
    await call('input', { session: s.session, data: Buffer.from('x\r') });
    await call('daemon_status');
    await c.waitFor((m) => m.type === 'exit');
    await call('list_sessions');
    await call('list_turns', { session: s.session });
    await call('detach', { session: s.session });
    await call('remove', { session: s.session });
    await call('put_buffer', { text: 't', label: 'l' });
    await call('unsubscribe');
    for (const [type, r] of results) {
      expect(ResponseSchema.safeParse(r).success).toBe(true);
      const parsed = RESULT_SCHEMAS[type].safeParse(r);
      expect(parsed.success, `${type}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
    }
    const pushes = c.messages.filter(
      (m) => m.id === 0 && m.type !== 'response' && m.type !== 'hello_ack',
    );
    expect(new Set(pushes.map((p) => p.type))).toEqual(
      new Set([
        'session_created',
        'output',
        'exit',
        'state_changed',
        'session_resized',
        'session_exited',
        'session_removed',
      ]),
    );
    for (const p of pushes) {
      expect(isPushType(p.type)).toBe(true);
      const schema = PUSH_SCHEMAS[p.type as keyof typeof PUSH_SCHEMAS];
      const parsed = schema.safeParse(p);
      expect(parsed.success, `${p.type}: ${JSON.stringify(parsed.error?.issues)}`).toBe(true);
    }
    const ack = c.messages.find((m) => m.type === 'hello_ack');
    expect(HelloAckSchema.safeParse(ack).success).toBe(true);
  });
});

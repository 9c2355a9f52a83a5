import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import headless from '@xterm/headless';
import serialize from '@xterm/addon-serialize';
import { childEnv, startTestBroker, waitUntil, type TestBroker } from '../test-support/fixtures.js';
import type { Message, RawClient } from '../test-support/raw-client.js';

const { Terminal } = headless;
const { SerializeAddon } = serialize;

let tb: TestBroker;

beforeEach(async () => {
  tb = await startTestBroker();
});
/** The FIFO folders of the test that holds its program (removed after each test). */
const cleanupHolds: string[] = [];
afterEach(async () => {
  await tb.stop();
  for (const dir of cleanupHolds.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** A fresh headless terminal fed with `bytes`; resolves with it once parsed. */
async function render(cols: number, rows: number, bytes: Uint8Array[], scrollback = 1000) {
  const term = new Terminal({ cols, rows, scrollback, allowProposedApi: true });
  const ser = new SerializeAddon();
  term.loadAddon(ser as never);
  for (const b of bytes) term.write(b);
  await new Promise<void>((r) => term.write('', r));
  return { term, ser };
}

function lines(term: InstanceType<typeof Terminal>): string[] {
  const out: string[] = [];
  const buf = term.buffer.active;
  for (let y = 0; y < buf.length; y++) out.push(buf.getLine(y)?.translateToString(true) ?? '');
  return out;
}

async function spawn(
  c: RawClient,
  command: string,
  args: string[],
  extra: Record<string, unknown> = {},
) {
  const r = await c.ok('spawn', { command, args, env: childEnv(), cwd: tmpdir(), ...extra });
  return r as unknown as { session: string; name: string; pid: number };
}

function outputsAfter(c: RawClient, session: string, response: Message): Buffer[] {
  const i = c.messages.indexOf(response);
  return c.messages
    .slice(i + 1)
    .filter((m) => m.type === 'output' && m.session === session)
    .map((m) => Buffer.from(m.data as Uint8Array));
}

describe('attach', () => {
  it('replays the screen exactly: colours, cursor, alternate screen, modes', async () => {
    const a = await tb.client();
    const script = [
      "printf '\\033[31mred\\033[0m plain \\033[1;44mbold-on-blue\\033[0m\\n'",
      "printf 'line two\\n'",
      "printf '\\033[?1049h\\033[2J\\033[Halt screen \\033[32mgreen\\033[0m'",
      "printf '\\033[5;7Hcursor-here'",
      "printf '\\033[?2004h\\033[?25l\\033[?1h'",
      'printf MARK; sleep 30',
    ].join('; ');
    const s = await spawn(a, 'sh', ['-c', script], { cols: 60, rows: 12 });
    const first = await a.ok('attach', { session: s.session });
    // MARK is the program's last output, and a replay covers exactly the bytes read before it:
    // once the first client has MARK, the second one's replay has all of it.
    const seen = () => Buffer.from(first.replay as Uint8Array).toString() + a.output(s.session);
    await a.until(() => seen().includes('MARK'));
    const b = await tb.client();
    const second = await b.ok('attach', { session: s.session });
    const replay = Buffer.from(second.replay as Uint8Array);
    expect(second).toMatchObject({ cols: 60, rows: 12, exited: false });

    const original = await render(60, 12, [
      Buffer.from(first.replay as Uint8Array),
      ...outputsAfter(a, s.session, first),
    ]);
    const restored = await render(60, 12, [replay]);
    expect(restored.ser.serialize()).toBe(original.ser.serialize());
    expect(restored.term.buffer.active.type).toBe('alternate');
    expect(restored.term.buffer.active.cursorX).toBe(original.term.buffer.active.cursorX);
    expect(restored.term.buffer.active.cursorY).toBe(original.term.buffer.active.cursorY);
    expect(restored.term.modes.bracketedPasteMode).toBe(true);
    expect(restored.term.modes.applicationCursorKeysMode).toBe(true);
    expect(replay.toString().endsWith('\x1b[?25l')).toBe(true);
    const cell = restored.term.buffer.normal.getLine(0)!.getCell(0)!;
    expect(cell.getChars()).toBe('r');
    expect(cell.isFgPalette()).toBe(true);
    expect(cell.getFgColor()).toBe(1);
  });

  it('loses and duplicates no byte between replay and live output', async () => {
    // The program holds at three points until the test releases it (a FIFO each), so the
    // second attach lands mid-stream however loaded the machine: before, it waited for n1500
    // and hoped the rest was still to come, and on a busy machine all 3000 lines were replay.
    const holds = mkdtempSync(join(tmpdir(), 'clippy-holds-'));
    cleanupHolds.push(holds);
    const fifo = (name: string) => {
      const path = join(holds, name);
      execFileSync('mkfifo', [path]);
      return { path, release: () => writeFile(path, 'go\n') };
    };
    const [start, mid, last] = [fifo('start'), fifo('mid'), fifo('last')];
    const print =
      'p() { i=$1; while [ $i -le $2 ]; do echo "n$i"; ' +
      'if [ $((i % 100)) -eq 0 ]; then sleep 0.02; fi; i=$((i+1)); done; }';
    const script =
      `${print}; read g < ${start.path}; p 1 1500; read g < ${mid.path}; p 1501 2999; ` +
      `read g < ${last.path}; echo n3000`;
    const a = await tb.client();
    const s = await spawn(a, 'sh', ['-c', script], { cols: 40, rows: 10 });
    await a.ok('attach', { session: s.session, mode: 'observer' });
    await start.release();
    await a.until(() => a.output(s.session).toString().includes('n1500\r\n'));
    const b = await tb.client();
    // The rest streams while the attach is handled; n3000 comes only after it answered.
    const attaching = b.ok('attach', { session: s.session, mode: 'observer' });
    const released = mid.release();
    const attached = await attaching;
    await released;
    await last.release();
    await b.waitFor((m) => m.type === 'exit', 20_000);
    const live = outputsAfter(b, s.session, attached);
    // Attached mid-stream: part of the sequence came in the replay, the rest live.
    expect(Buffer.from(attached.replay as Uint8Array).toString()).toMatch(/n\d{4}\r\n/);
    expect(Buffer.concat(live).toString()).toContain('n3000');
    const { term } = await render(
      40,
      10,
      [Buffer.from(attached.replay as Uint8Array), ...live],
      10_000,
    );
    const numbers = lines(term)
      .map((l) => /^n(\d+)$/.exec(l.trim()))
      .filter((m): m is RegExpExecArray => m !== null)
      .map((m) => Number(m[1]));
    expect(numbers.at(-1)).toBe(3000);
    const firstNumber = numbers[0]!;
    expect(firstNumber).toBeGreaterThan(1); // attached mid-stream: the start scrolled out of the replay
    expect(numbers).toEqual(Array.from({ length: 3001 - firstNumber }, (_, k) => firstNumber + k));
  });

  it('shows the same output to two clients, and both may type', async () => {
    const a = await tb.client();
    const b = await tb.client();
    const s = await spawn(a, 'cat', []);
    const ra = await a.ok('attach', { session: s.session });
    const rb = await b.ok('attach', { session: s.session });
    await a.ok('input', { session: s.session, data: Buffer.from('from-a\r') });
    await b.ok('input', { session: s.session, data: Buffer.from('from-b\r') });
    for (const c of [a, b])
      await c.until(
        () =>
          (
            c
              .output(s.session)
              .toString()
              .match(/from-b/g) ?? []
          ).length >= 2,
      );
    expect(Buffer.concat(outputsAfter(a, s.session, ra)).toString()).toBe(
      Buffer.concat(outputsAfter(b, s.session, rb)).toString(),
    );
  });

  it('detach leaves the session running; a dropped connection detaches it', async () => {
    const a = await tb.client();
    const s = await spawn(a, 'cat', []);
    await a.ok('attach', { session: s.session });
    await a.ok('detach', { session: s.session });
    expect((await a.request('detach', { session: s.session })).error).toBe('not_attached');
    const b = await tb.client();
    await b.ok('attach', { session: s.session });
    let info = ((await a.ok('list_sessions')).sessions as Record<string, unknown>[])[0]!;
    expect(info).toMatchObject({ state: 'starting', clients: 1 });
    b.close();
    await waitUntil(() => tb.broker.table.resolve(s.session)!.clientCount === 0);
    info = ((await a.ok('list_sessions')).sessions as Record<string, unknown>[])[0]!;
    expect(info.clients).toBe(0);
    expect(info.exited_at).toBeNull();
  });

  it('sizes the session by the latest active client', async () => {
    const a = await tb.client();
    const b = await tb.client();
    const s = await spawn(a, 'bash', ['--norc', '--noprofile', '-i'], { cols: 80, rows: 24 });
    await a.ok('attach', { session: s.session, cols: 100, rows: 30 });
    await b.ok('attach', { session: s.session, cols: 120, rows: 40 });
    const size = async () => {
      const info = ((await a.ok('list_sessions')).sessions as Record<string, unknown>[])[0]!;
      return `${String(info.cols)}x${String(info.rows)}`;
    };
    expect(await size()).toBe('120x40');
    await a.ok('input', { session: s.session, data: Buffer.from('stty size\r') });
    await a.until(() => a.output(s.session).toString().includes('30 100'));
    expect(await size()).toBe('100x30');
    await b.ok('resize', { session: s.session, cols: 132, rows: 43 });
    await b.ok('input', { session: s.session, data: Buffer.from('stty size\r') });
    await b.until(() => b.output(s.session).toString().includes('43 132'));
    expect(await size()).toBe('132x43');
  });

  it('an observer never resizes the session: not when it attaches, nor when it asks to', async () => {
    const a = await tb.client();
    const s = await spawn(a, 'bash', ['--norc', '--noprofile', '-i'], { cols: 80, rows: 24 });
    await a.ok('attach', { session: s.session });
    const size = async () => {
      const info = ((await a.ok('list_sessions')).sessions as Record<string, unknown>[])[0]!;
      return `${String(info.cols)}x${String(info.rows)}`;
    };
    const watcher = await tb.client();
    const attached = await watcher.ok('attach', {
      session: s.session,
      mode: 'observer',
      cols: 200,
      rows: 50,
    });
    expect(attached).toMatchObject({ cols: 80, rows: 24 });
    await watcher.ok('resize', { session: s.session, cols: 150, rows: 45 });
    expect(await size()).toBe('80x24');
    await a.ok('input', { session: s.session, data: Buffer.from('stty size\r') });
    await a.until(() => a.output(s.session).toString().includes('24 80'));
    expect(await size()).toBe('80x24');
  });

  it('a viewer (ignore_size) never resizes, typing included; fit takes the size; when the driver leaves the size returns to the remaining one', async () => {
    const a = await tb.client();
    const s = await spawn(a, 'bash', ['--norc', '--noprofile', '-i'], { cols: 80, rows: 24 });
    await a.ok('subscribe', { events: ['session_resized'] });
    await a.ok('attach', { session: s.session, cols: 100, rows: 30 });
    const size = async () => {
      const info = ((await a.ok('list_sessions')).sessions as Record<string, unknown>[])[0]!;
      return `${String(info.cols)}x${String(info.rows)}`;
    };
    const stty = async (c: RawClient, expected: string) => {
      const before = c.output(s.session).toString().split(expected).length;
      await c.ok('input', { session: s.session, data: Buffer.from('stty size\r') });
      await c.until(() => c.output(s.session).toString().split(expected).length > before);
    };
    expect(await size()).toBe('100x30');
    // A phone-sized page: attaching, resizing and typing leave the size alone.
    const viewer = await tb.client();
    const attached = await viewer.ok('attach', {
      session: s.session,
      cols: 40,
      rows: 20,
      ignore_size: true,
    });
    expect(attached).toMatchObject({ cols: 100, rows: 30 });
    await viewer.ok('resize', { session: s.session, cols: 2, rows: 40 });
    await stty(viewer, '30 100');
    expect(await size()).toBe('100x30');
    // "Fit this session to my window": taken at once, and said to subscribers.
    await viewer.ok('resize', { session: s.session, cols: 60, rows: 20, fit: true });
    expect(await size()).toBe('60x20');
    await a.until(() =>
      a.messages.some((m) => m.type === 'session_resized' && m.cols === 60 && m.rows === 20),
    );
    await stty(viewer, '20 60');
    // The viewer leaves: the size goes back to the driving client's.
    await viewer.ok('detach', { session: s.session });
    expect(await size()).toBe('100x30');
    // A second driver, then the latest one leaves: the size is the remaining driver's.
    const b = await tb.client();
    await b.ok('attach', { session: s.session, cols: 120, rows: 40 });
    expect(await size()).toBe('120x40');
    b.close();
    await waitUntil(() => tb.broker.table.resolve(s.session)!.clientCount === 1);
    expect(await size()).toBe('100x30');
    await stty(a, '30 100');
  });

  it('a viewer’s fit is undone when it leaves, with no driving client there: detach, or its connection gone', async () => {
    const a = await tb.client();
    // A detached agent (clippy new -d): its size is its own, nobody drives it.
    const s = await spawn(a, 'bash', ['--norc', '--noprofile', '-i'], { cols: 100, rows: 30 });
    const size = async () => {
      const info = ((await a.ok('list_sessions')).sessions as Record<string, unknown>[])[0]!;
      return `${String(info.cols)}x${String(info.rows)}`;
    };
    for (const leave of ['detach', 'close'] as const) {
      const phone = await tb.client();
      await phone.ok('attach', { session: s.session, cols: 46, rows: 20, ignore_size: true });
      await phone.ok('resize', { session: s.session, cols: 46, rows: 20, fit: true });
      expect(await size()).toBe('46x20');
      if (leave === 'detach') await phone.ok('detach', { session: s.session });
      else phone.close();
      await waitUntil(() => tb.broker.table.resolve(s.session)!.clientCount === 0);
      expect(await size()).toBe('100x30');
    }
    // `clippy resize` while a viewer's fit holds: that size is the session's, and stays.
    const phone = await tb.client();
    await phone.ok('attach', { session: s.session, cols: 46, rows: 20, ignore_size: true });
    await phone.ok('resize', { session: s.session, cols: 46, rows: 20, fit: true });
    await a.ok('resize', { session: s.session, cols: 90, rows: 25 });
    await phone.ok('detach', { session: s.session });
    expect(await size()).toBe('90x25');
  });

  it('send types text and presses Enter as a separate write', async () => {
    const a = await tb.client();
    const s = await spawn(a, 'bash', ['--norc', '--noprofile', '-i']);
    await a.ok('attach', { session: s.session });
    const r = await a.ok('send', { session: s.session, text: 'echo sent-$((40+2))', enter: true });
    expect(r.submitted).toBe(true);
    await a.until(() => a.output(s.session).toString().includes('sent-42'));
  });
});

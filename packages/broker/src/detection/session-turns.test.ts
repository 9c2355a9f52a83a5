import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import * as nodePty from 'node-pty';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { resolvePreset } from '@clippy/turns';
import { agentCommand, type AgentName } from '@clippy/testkit/agents/index';
import { submissions } from '@clippy/testkit/agents/harness';
import { programMissing } from '@clippy/testkit/requirements';
import { until } from '@clippy/testkit/until';
import type { SessionState } from '@clippy/protocol';
import { inject, type InjectTarget } from '../relay/injector.js';
import { readCanonicalMode } from '../relay/line-discipline.js';
import { OutputPipeline } from '../pipeline/output-pipeline.js';
import type { StoredTurn } from '../turn-ring/turn-ring.js';
import { SessionTurns } from './session-turns.js';

/**
 * A fake agent in a real PTY, its output going through an output pipeline (the screen model and
 * the detector in the pipeline worker) with SessionTurns on it, the way the broker's session
 * does it, and an InjectTarget over it: the turn machinery end to end without the daemon.
 */
class Harness {
  readonly pty: nodePty.IPty;
  readonly output: OutputPipeline;
  readonly turns: SessionTurns;
  readonly stored: StoredTurn[] = [];
  readonly states: SessionState[] = [];
  readonly errors: unknown[] = [];
  state: SessionState = 'starting';
  outputBytes = 0;
  readyCount = 0;
  exited = false;
  /** Waits on the harness's session, woken as the broker's Session wakes them (onActivity). */
  private readonly activity = new Set<() => void>();

  constructor(
    agent: AgentName | { command: string; args: string[] },
    preset: string,
    args: string[],
    maxTurnBytes = 4 * 1024 * 1024,
  ) {
    const { command, args: full } = typeof agent === 'string' ? agentCommand(agent, args) : agent;
    this.pty = nodePty.spawn(command, full, {
      cols: 80,
      rows: 24,
      encoding: null as unknown as string,
    });
    this.output = new OutputPipeline(80, 24, {
      deliver: () => {},
      flowChanged: () => {},
      // The terminal's answers to the program's queries, as the session gives them.
      answer: (data) => this.pty.write(data),
    });
    this.turns = new SessionTurns({
      sessionId: 'sess',
      preset: resolvePreset(preset),
      limits: { depth: 32, maxTurnBytes },
      cols: 80,
      pipeline: this.output,
      events: {
        ready: () => this.readyCount++,
        state: (s) => {
          this.state = s;
          this.states.push(s);
        },
        turn: (t) => this.stored.push(t),
        error: (e) => this.errors.push(e),
        activity: () => this.notify(),
      },
    });
    this.pty.onData((d) => {
      const chunk = d as unknown as Buffer;
      this.outputBytes += chunk.length;
      this.output.write(chunk);
      this.notify();
    });
    this.pty.onExit(() => {
      this.exited = true;
      this.turns.end();
    });
  }

  private notify(): void {
    for (const listener of [...this.activity]) listener();
  }

  onActivity(listener: () => void): () => void {
    this.activity.add(listener);
    return () => this.activity.delete(listener);
  }

  target(): InjectTarget {
    const waitFor = (done: () => boolean, ms: number) =>
      new Promise<void>((resolve) => {
        if (done()) return resolve();
        const timer = setTimeout(finish, ms);
        const off = this.onActivity(() => done() && finish());
        function finish() {
          clearTimeout(timer);
          off();
          resolve();
        }
      });
    return {
      name: 'agent',
      isLive: () => !this.exited,
      state: () => this.state,
      waitState: (ready, ms) =>
        waitFor(() => ready.includes(this.state), ms).then(() => ready.includes(this.state)),
      readsLines: () => this.turns.readsLines,
      submits: () => this.turns.submits,
      dropUntaken: () => this.turns.dropUntaken(),
      waitTaken: (seq, ms) =>
        waitFor(() => (this.turns.submits?.taken ?? 0) >= seq, ms).then(
          () => (this.turns.submits?.taken ?? 0) >= seq,
        ),
      bracketedPaste: () => this.output.bracketedPaste,
      outputBytes: () => this.outputBytes,
      waitOutput: (after, ms) =>
        waitFor(() => this.outputBytes > after, ms).then(() => this.outputBytes > after),
      write: async (data) => {
        this.pty.write(Buffer.from(data) as unknown as string);
        this.turns.onInput(data);
        await this.turns.synced();
      },
      drain: async () => {},
      canonicalMode: () => readCanonicalMode((this.pty as unknown as { ptsName?: string }).ptsName),
    };
  }

  ask(text: string, force = false) {
    return inject(this.target(), Buffer.from(text), { enter: true, force });
  }

  async nextTurn(timeoutMs = 10_000): Promise<StoredTurn> {
    return this.turns.waitTurn(this.turns.ring.count, timeoutMs);
  }

  dispose(): void {
    this.turns.dispose();
    try {
      process.kill(this.pty.pid, 'SIGKILL');
    } catch {
      // already gone
    }
    this.output.dispose();
  }
}

let dir: string;
const harnesses: Harness[] = [];
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'clippy-'));
});
afterEach(() => {
  for (const h of harnesses.splice(0)) h.dispose();
  rmSync(dir, { recursive: true, force: true });
});

function start(
  agent: AgentName,
  preset: string,
  args: string[] = [],
  maxTurnBytes?: number,
): Harness {
  const h = new Harness(agent, preset, ['--log', join(dir, `${agent}.log`), ...args], maxTurnBytes);
  harnesses.push(h);
  return h;
}

function promptTimes(agent: string): number[] {
  return readFileSync(join(dir, `${agent}.log`), 'utf8')
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l) as { prompt_at?: number })
    .flatMap((e) => (e.prompt_at ? [e.prompt_at] : []));
}

describe('SessionTurns with the real engine and fake agents in real PTYs', () => {
  it('aider-style line agent: ready once, each turn once, after the prompt, with the answer text', async () => {
    const h = start('aider', 'aider');
    for (const [i, q] of ['hello there', 'second question'].entries()) {
      const next = h.nextTurn();
      const r = await h.ask(q);
      expect(r).toEqual({ submitted: true, bracketed: false });
      const turn = await next;
      expect(turn.seq).toBe(i + 1);
      expect(turn.prompt).toBe(q);
      expect(turn.text).toContain(
        `ANSWER: ${q}\nThe fake agent read your message.\nEnd of answer.`,
      );
      expect(turn.text).not.toMatch(/Tokens:|> $/);
      expect(turn.timestamp).toBeGreaterThanOrEqual(promptTimes('aider')[i + 1]!);
    }
    expect(h.readyCount).toBe(1);
    expect(h.stored).toHaveLength(2);
    expect(h.errors).toEqual([]);
  });

  it('keys typed through one reused buffer (as the terminal is read) are seen as typed', async () => {
    const h = start('aider', 'aider');
    await until(() => h.readyCount === 1, 'the agent is ready', 10_000);
    const next = h.nextTurn();
    // One read buffer for every key, as the daemon reads a directly attached terminal: the
    // detector must keep copies, not views that the next key overwrites.
    const read = Buffer.alloc(64);
    for (const ch of 'typed by hand\r') {
      read.write(ch, 0, 'latin1');
      h.turns.onInput(read.subarray(0, 1));
      h.pty.write(ch);
      read.fill(0x21);
    }
    const turn = await next;
    expect(turn.prompt).toBe('typed by hand');
    expect(turn.text).toContain('ANSWER: typed by hand');
  });

  it.skipIf(programMissing('python3') !== null)(
    'an Enter written answers a continuation prompt at once, before its echo is read',
    async () => {
      const h = new Harness({ command: 'python3', args: ['-i', '-q'] }, 'python', []);
      harnesses.push(h);
      await until(() => h.readyCount === 1, 'the python prompt', 10_000);
      const type = (text: string) => {
        h.pty.write(text);
        h.turns.onInput(Buffer.from(text));
      };
      type('x = (\r');
      await until(() => h.turns.awaitingMore, 'the continuation prompt', 10_000);
      // Its bookkeeping waits for the echo; the question is answered with it already.
      type('1)\r');
      expect(h.turns.awaitingMore).toBe(false);
      expect(h.errors).toEqual([]);
    },
  );

  it('claude-style TUI: the spinner keeps it busy; the turn completes once the box is idle again', async () => {
    const h = start('claude', 'claude', ['--delay', '600']);
    const next = h.nextTurn();
    const r = await h.ask('what is two plus two');
    expect(r).toEqual({ submitted: true, bracketed: true });
    const turn = await next;
    expect(turn.text).toContain('ANSWER: what is two plus two');
    expect(turn.text).toContain('End of answer.');
    expect(turn.text).not.toMatch(/Thinking|esc to interrupt|for shortcuts|❯/);
    expect(turn.timestamp).toBeGreaterThanOrEqual(promptTimes('claude')[1]!);
    expect(h.states).toContain('busy');
    expect(h.state).toBe('idle');
    expect(h.stored).toHaveLength(1);
  });

  it('a TUI that takes an Enter as a newline (its text stays in the box) gets Enter again; the turn is the answer', async () => {
    // Gemini CLI 0.61 takes an Enter soon after a paste as a newline: the box is redrawn (output
    // follows the Enter) but nothing is submitted. Output is no proof: the text left the box is.
    const h = start('claude', 'claude', ['--newline-enters', '1']);
    await until(() => h.state === 'idle', 'the agent is ready', 10_000);
    const next = h.nextTurn(20_000);
    expect(await h.ask('enter me twice')).toEqual({ submitted: true, bracketed: true });
    const turn = await next;
    expect(turn.text).toContain('ANSWER: enter me twice');
    const submitted = readFileSync(join(dir, 'claude.log'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { text?: string })
      .flatMap((e) => (e.text === undefined ? [] : [e.text]));
    expect(submitted).toEqual(['enter me twice\n']);
  });

  it('a TUI that never takes the Enter: not_submitted, and no turn is left open', async () => {
    const h = start('claude', 'claude', ['--newline-enters', '2']);
    await until(() => h.state === 'idle', 'the agent is ready', 10_000);
    await expect(h.ask('never submitted')).rejects.toMatchObject({ code: 'not_submitted' });
    expect(h.state).toBe('idle');
    expect(h.turns.submits).toEqual({ sent: 2, taken: 0 });
    // The next Enter submits what the box holds; that turn completes with its answer.
    const next = h.nextTurn(20_000);
    await h.target().write(Buffer.from('\r'));
    expect((await next).text).toContain('ANSWER: never submitted');
  });

  it('slow agent: pauses longer than the quiet period complete no turn', async () => {
    const h = start('slow', 'aider', ['--pause', '700']);
    const next = h.nextTurn(15_000);
    await h.ask('take your time');
    const turn = await next;
    expect(turn.text).toMatch(
      /Piece 1 of 3[\s\S]*Piece 2 of 3[\s\S]*Piece 3 of 3[\s\S]*ANSWER: take your time/,
    );
    expect(h.stored).toHaveLength(1);
    expect(turn.timestamp).toBeGreaterThanOrEqual(promptTimes('slow')[1]!);
  });

  it('Ctrl-C during an answer: the turn that follows is flagged interrupted', async () => {
    // The answer holds after its first piece until released (SIGUSR1); the Ctrl-C comes once
    // the agent has read the line (a Ctrl-C before would flush it from the terminal), and the
    // release once the terminal has echoed the ^C (its signal is sent): a 300 ms pause before.
    const h = start('slow', 'aider', ['--hold']);
    const next = h.nextTurn();
    await h.ask('stop me');
    await until(() => submissions(join(dir, 'slow.log')).length > 0, 'the agent read the line');
    const before = h.outputBytes;
    await h.target().write(Buffer.from('\x03'));
    await until(() => h.outputBytes > before, 'the ^C echoed');
    process.kill(h.pty.pid, 'SIGUSR1');
    const turn = await next;
    expect(turn.interrupted).toBe(true);
    expect(turn.text).toContain('KeyboardInterrupt');
    expect(turn.text).not.toContain('End of answer.');
  });

  it('a line too long for a canonical-mode reader is refused with input_too_long, nothing written', async () => {
    const h = start('aider', 'aider');
    await until(() => h.state === 'idle', 'aider idle', 10_000);
    expect(await readCanonicalMode((h.pty as unknown as { ptsName: string }).ptsName)).toBe(true);
    const before = h.outputBytes;
    await expect(h.ask('x'.repeat(5000))).rejects.toMatchObject({ code: 'input_too_long' });
    // A fixed pause: that nothing comes can only be watched for a while (a write would have
    // been echoed by the terminal at once).
    await new Promise((r) => setTimeout(r, 100));
    expect(h.outputBytes).toBe(before);
    // A TUI in raw mode with bracketed paste takes the same text.
    const t = start('claude', 'claude');
    await until(() => t.state === 'idle', 'claude idle', 10_000);
    expect(await readCanonicalMode((t.pty as unknown as { ptsName: string }).ptsName)).toBe(false);
    await expect(t.ask('y'.repeat(5000))).resolves.toEqual({ submitted: true, bracketed: true });
  });

  it('crashing agent: no turn comes of the interrupted answer', async () => {
    const h = start('crash', 'aider');
    const next = h.nextTurn();
    await h.ask('please crash');
    await expect(next).rejects.toMatchObject({ code: 'session_exited' });
    expect(h.stored).toHaveLength(0);
  });

  it('injection waits for the idle prompt, or fails with target_busy', async () => {
    const h = start('slow', 'aider', ['--pause', '600']);
    await h.ask('one');
    // Detection runs in the pipeline worker, as in the daemon: the input reaches it a moment later.
    await until(() => h.state === 'busy');
    expect(h.state).toBe('busy');
    await expect(
      inject(h.target(), Buffer.from('two'), { enter: true, force: false, idleWaitMs: 200 }),
    ).rejects.toMatchObject({
      code: 'target_busy',
    });
    const r = await inject(h.target(), Buffer.from('two'), {
      enter: true,
      force: false,
      idleWaitMs: 10_000,
    });
    expect(r.submitted).toBe(true);
    const turn = await h.nextTurn(15_000);
    expect(turn.prompt).toBe('two');
  });
});

import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { until } from './until.js';

/** One desktop notification the fake received: when (epoch ms) and its arguments. */
export interface NotifyRecord {
  at: number;
  args: string[];
  /** The last two arguments: notify-send's summary and body. */
  title: string;
  body: string;
}

/**
 * A fake `notify-send` for tests and benchmarks: a directory to put first on the daemon's PATH,
 * whose `notify-send` appends one line per call to a log (the time in ms and each argument,
 * tab-separated, newlines in them made spaces), so a test reads what the desktop would show.
 */
export class FakeNotifySend {
  readonly dir = mkdtempSync(join(tmpdir(), 'clippy-notify-'));
  readonly log = join(this.dir, 'calls.log');

  constructor() {
    const script = join(this.dir, 'notify-send');
    writeFileSync(
      script,
      [
        '#!/bin/sh',
        'line="$(date +%s%3N)"',
        'for a in "$@"; do line="$line$(printf \'\\t%s\' "$(printf \'%s\' "$a" | tr \'\\n\\t\' \'  \')")"; done',
        `printf '%s\\n' "$line" >> '${this.log}'`,
        '',
      ].join('\n'),
    );
    chmodSync(script, 0o755);
    writeFileSync(this.log, '');
  }

  /** PATH with the fake first. */
  path(rest = process.env.PATH ?? '/usr/bin:/bin'): string {
    return `${this.dir}:${rest}`;
  }

  records(): NotifyRecord[] {
    return readFileSync(this.log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [at, ...args] = line.split('\t');
        return { at: Number(at), args, title: args.at(-2) ?? '', body: args.at(-1) ?? '' };
      });
  }

  /** Resolves with the records once there are at least `n`. */
  async waitFor(n: number, timeoutMs = 10_000): Promise<NotifyRecord[]> {
    await until(() => this.records().length >= n, `${n} desktop notification(s)`, timeoutMs);
    return this.records();
  }

  dispose(): void {
    rmSync(this.dir, { recursive: true, force: true });
  }
}

import fs from 'node:fs';
import path from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runClippy } from '@clippy/testkit/cli-pty';
import { DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';

// End-to-end: the built `clippy config` and every other reader of config.json, against real
// files (and a real daemon where one is involved).

/** Per test: a few CLI runs, and a daemon start, on a loaded 2-core CI box. */
const E2E_TIMEOUT_MS = 60_000;

const cleanups: (() => Promise<void> | void)[] = [];
afterEach(async () => {
  for (const c of cleanups.splice(0).reverse()) await c();
}, E2E_TIMEOUT_MS);

function freshEnv(extra: NodeJS.ProcessEnv = {}): DaemonEnv {
  const e = new DaemonEnv(extra);
  cleanups.push(() => e.dispose());
  return e;
}

function writeConfig(e: DaemonEnv, text: string): string {
  const file = path.join(e.env.XDG_CONFIG_HOME!, 'clippy', 'config.json');
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, text);
  return file;
}

interface Setting {
  key: string;
  value: unknown;
  source: string;
  line?: number;
  env?: string;
  flag?: string;
}

describe('clippy config', () => {
  it(
    'without a file: every setting at its default, and the path',
    async () => {
      const e = freshEnv();
      const file = path.join(e.env.XDG_CONFIG_HOME!, 'clippy', 'config.json');
      const r = await runClippy(['config'], e.env);
      expect(r.code).toBe(0);
      expect(r.stdout).toContain(`${file}: absent: every setting is its default`);
      expect(r.stdout).toMatch(/^turnRingDepth\s+32\s+default/m);
      expect(r.stdout).toMatch(/^detachKey\s+ctrl-]\s+default\s+--detach-key \(attach, new\)/m);
      const json = JSON.parse((await runClippy(['config', '--json'], e.env)).stdout);
      expect(json).toMatchObject({ file, exists: false, valid: true, unknown: [] });
      expect(json.settings.map((s: Setting) => s.key)).toEqual([
        'turnRingDepth',
        'maxTurnBytes',
        'persist',
        'agentChannels',
        'historyMaxBytes',
        'historyMaxAgeDays',
        'historyLockWaitSeconds',
        'detachKey',
        'term',
        'hotkeys.capture',
        'hotkeys.paste',
        'hotkeys.feedback',
        'executionReport.tipMaxLines',
        'executionReport.tipMaxChars',
        'web.port',
        'hosts',
        'worktreeDir',
        'pricing.models',
        'notify.turn',
        'notify.blocked',
        'notify.desktop',
        'notify.page',
        'notify.sound',
        'notify.bell',
        'notify.editor',
        'notify.webhook',
        'notify.webhookFormat',
        'notify.presets',
      ]);
      expect(json.settings.every((s: Setting) => s.source === 'default')).toBe(true);
      expect(json.settings.every((s: Setting) => s.value !== undefined)).toBe(true);
      const p = await runClippy(['config', 'path'], e.env);
      expect(p).toEqual({ code: 0, stdout: `${file}\n`, stderr: '' });
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'says where each value came from: the file and line, an environment variable, a default; names unknown keys',
    async () => {
      const e = freshEnv({ CLIPPY_DETACH_KEY: 'ctrl-q' });
      const file = writeConfig(
        e,
        [
          '{',
          '  "detachKey": "ctrl-g",',
          '  "term": "screen-256color",',
          '  "hotkeys": { "feedback": "terminal" },',
          '  "hosts": {',
          '    "build": "me@build.example"',
          '  },',
          '  "turnRingdepth": 5',
          '}',
        ].join('\n'),
      );
      const r = await runClippy(['config', '--json'], e.env);
      expect(r.code).toBe(0);
      const json = JSON.parse(r.stdout);
      const by = (key: string) => json.settings.find((s: Setting) => s.key === key);
      expect(by('term')).toMatchObject({ value: 'screen-256color', source: 'file', line: 3 });
      expect(by('detachKey')).toMatchObject({
        value: 'ctrl-q',
        source: 'env',
        env: 'CLIPPY_DETACH_KEY',
        line: 2,
      });
      expect(by('hotkeys.feedback')).toMatchObject({ value: 'terminal', source: 'file', line: 4 });
      expect(by('hotkeys.capture')).toMatchObject({ value: 'super+shift+c', source: 'default' });
      expect(by('hosts.build')).toMatchObject({ value: 'me@build.example', line: 6 });
      expect(by('turnRingDepth')).toMatchObject({ value: 32, source: 'default' });
      expect(json.unknown).toEqual([{ key: 'turnRingdepth', line: 8 }]);
      const text = await runClippy(['config'], e.env);
      expect(text.stdout).toMatch(/^term\s+screen-256color\s+config\.json:3\s+--term \(new\)$/m);
      expect(text.stdout).toMatch(
        /^detachKey\s+ctrl-q\s+CLIPPY_DETACH_KEY \(over config\.json:2\)\s+--detach-key/m,
      );
      expect(text.stdout).toContain(
        `warning: ${file}:8: 'turnRingdepth' is no setting of this clippy (ignored; a typo?)`,
      );
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'a broken config.json is the same error, exit 64, in config, attach, new and a command that starts the daemon',
    async () => {
      const e = freshEnv();
      const file = writeConfig(e, '{\n  "term": "screen",\n  "turnRingDepth": 0\n}\n');
      const message = `clippy: ${file}:3: turnRingDepth: Too small: expected number to be >=1 (invalid_config)\n`;
      for (const args of [['config'], ['attach', 'x'], ['new', '-d', '--', 'true'], ['ls']]) {
        const r = await runClippy(args, e.env);
        expect({ args, stderr: r.stderr, code: r.code }).toEqual({
          args,
          stderr: message,
          code: 64,
        });
      }
      // `ls` tried to start the daemon: it refused the file and is not running.
      expect(fs.existsSync(e.socket)).toBe(false);
      const json = JSON.parse((await runClippy(['config', '--json'], e.env)).stdout);
      expect(json).toMatchObject({ file, valid: false });
      expect(json.error).toBe(`${file}:3: turnRingDepth: Too small: expected number to be >=1`);
      const doctor = await runClippy(['doctor'], e.env);
      expect(doctor.stdout).toContain(`FAIL  config     ${file}:3: turnRingDepth: Too small`);
      expect(doctor.code).toBe(1);
      // The daemon itself, run in the foreground as a service manager does.
      const fg = await runClippy(['daemon', 'start', '--foreground'], e.env);
      expect(fg.stderr).toBe(message.replace(/^clippy:/, 'clippyd:'));
      expect(fg.code).toBe(78);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'a detach key `new` refuses is flagged by config and doctor with the same message (file and CLIPPY_DETACH_KEY)',
    async () => {
      const e = freshEnv();
      const file = writeConfig(e, '{ "detachKey": "ctrl-c" }\n');
      const why = "detach key 'ctrl-c' is not allowed: Ctrl-C must interrupt the program";
      const fromEnv = { ...e.env, CLIPPY_DETACH_KEY: 'ctrl-m' };
      // Independent looks at one state (each a node start-up): at once.
      const [created, r, asJson, doctor, envConfig, envDoctor] = await Promise.all([
        // What `new` (attaching) says of it: the check config and doctor make too.
        runClippy(['new', '--', 'true'], e.env),
        runClippy(['config'], e.env),
        runClippy(['config', '--json'], e.env),
        runClippy(['doctor'], e.env),
        // The environment variable wins over the file, and is checked the same way.
        runClippy(['config'], fromEnv),
        runClippy(['doctor'], fromEnv),
      ]);
      expect(created.stderr).toBe(`clippy: ${why}\n`);
      expect(created.code).toBe(64);
      expect(r.stdout).toMatch(/^detachKey\s+ctrl-c \(refused\)\s+config\.json:1/m);
      expect(r.stderr).toBe(
        `clippy: detachKey in ${file}: ${why} (clippy new and attach refuse it)\n`,
      );
      expect(r.code).toBe(64);
      expect(
        JSON.parse(asJson.stdout).settings.find((s: Setting) => s.key === 'detachKey'),
      ).toMatchObject({ value: 'ctrl-c', error: why });
      expect(doctor.stdout).toContain(`FAIL  detach key detachKey in ${file}: ${why}`);
      expect(doctor.code).toBe(1);
      expect(envConfig.stderr).toContain("CLIPPY_DETACH_KEY: detach key 'ctrl-m' is not allowed");
      expect(envConfig.code).toBe(64);
      expect(envDoctor.stdout).toContain("FAIL  detach key CLIPPY_DETACH_KEY: detach key 'ctrl-m'");
      // A key new takes passes.
      writeConfig(e, '{ "detachKey": "ctrl-q" }\n');
      const [ok, okDoctor] = await Promise.all([
        runClippy(['config'], e.env),
        runClippy(['doctor'], e.env),
      ]);
      expect(ok.code).toBe(0);
      expect(okDoctor.stdout).toMatch(/ok\s+detach key Ctrl-Q/);
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'a config.json broken while the daemon runs: new is refused with it, ls still answers',
    async () => {
      const d = await TestDaemon.start();
      cleanups.push(() => d.stop());
      const file = writeConfig(d.env, '{ "persist": "yes" }');
      const r = await runClippy(['new', '-d', '--', 'true'], d.env.env);
      expect(r.stderr).toBe(
        `clippy: ${file}:1: persist: must be true, false or a list of preset names (invalid_config)\n`,
      );
      expect(r.code).toBe(64);
      expect((await runClippy(['ls'], d.env.env)).code).toBe(0);
    },
    E2E_TIMEOUT_MS,
  );
});

import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CliPty, runClippy } from '@clippy/testkit/cli-pty';
import { DaemonEnv, TestDaemon } from '@clippy/testkit/daemon';
import { spawnProgram } from '@clippy/testkit/agents/harness';
import { BUILTIN_PRESETS } from '@clippy/turns';
import { bins } from '@clippy/testkit/paths';
import { programMissing } from '@clippy/testkit/requirements';
import { eventually } from '@clippy/testkit/until';

// End-to-end: the scripts `clippy completion SHELL` prints, loaded in the real shells, complete
// against a real daemon through the built `clippy` on PATH. bash and zsh are driven in a PTY
// (TAB typed as a person does), fish through its own `complete -C`.

/** The whole file: a daemon, a session with a turn, shells in PTYs on a loaded 2-core box. */
const E2E_TIMEOUT_MS = 60_000;

let d: TestDaemon;
let env: NodeJS.ProcessEnv;
let scripts: string;
/** A name no other word on the screen starts with. */
const session = `alpha${process.pid}`;

beforeAll(async () => {
  d = await TestDaemon.start();
  scripts = fs.mkdtempSync(path.join(d.env.root, 'completion-'));
  // A file the shells' own file completion finds where clippy asks for one (`--plan FILE`).
  fs.writeFileSync(path.join(scripts, 'zz-plan.yaml'), '');
  // `clippy` by name, as an installed one is (the scripts call the program the line names).
  env = {
    ...d.env.env,
    PATH: `${path.dirname(bins.clippy)}:${process.env.PATH}`,
    HOME: d.env.root,
    PS1: '$ ',
  };
  const c = await d.connect();
  try {
    await spawnProgram(d, c, session, 'bash', 'bash', ['--norc', '--noprofile', '-i']);
    await c.request('send', { session, text: 'echo completion-turn', enter: true });
    await eventually(
      async () => (await c.request('list_turns', { session })).turns.length > 0,
      'a turn in the set-up session',
      15_000,
    );
  } finally {
    await c.close();
  }
}, E2E_TIMEOUT_MS);

afterAll(async () => {
  await d?.stop();
}, E2E_TIMEOUT_MS);

/** Writes `clippy completion SHELL` to a file and returns its path. */
async function script(shell: string, name: string): Promise<string> {
  const r = await runClippy(['completion', shell], env);
  expect(r.code).toBe(0);
  const file = path.join(scripts, name);
  fs.writeFileSync(file, r.stdout);
  return file;
}

/** Types a line and TAB into an interactive shell; resolves when the screen shows `expected`. */
async function tab(sh: CliPty, typed: string, expected: string | RegExp): Promise<void> {
  sh.write(typed);
  sh.write('\t');
  await sh.waitFor(expected);
  sh.write('\x15'); // Ctrl-U: a clean line for the next one
}

/** Ends an interactive shell as a person does, then frees its PTY. */
async function exit(sh: CliPty): Promise<void> {
  sh.write('exit\n');
  await sh.waitExit();
}

describe('clippy completion', () => {
  it(
    'bash: the script loads without errors and TAB completes commands, options, a live session and its turn IDs',
    async (ctx) => {
      const missing = programMissing('bash');
      if (missing) return ctx.skip(missing);
      const file = await script('bash', 'clippy.bash');
      const load = spawnSync('bash', ['--norc', '--noprofile', '-c', `source ${file}`], {
        env,
        encoding: 'utf8',
      });
      expect(load.stderr).toBe('');
      expect(load.status).toBe(0);
      const sh = CliPty.shell('exec bash --norc --noprofile -i', { env, cwd: scripts });
      try {
        sh.write(`source ${file}\n`);
        await tab(sh, 'clippy atta', /\$ clippy attach $/m);
        await tab(sh, 'clippy attach --obs', /\$ clippy attach --observer $/m);
        await tab(sh, `clippy attach ${session.slice(0, 6)}`, `$ clippy attach ${session} `);
        // A turn ID: bash splits the word at ':'; the script joins it again.
        await tab(sh, `clippy show ${session}:`, `$ clippy show ${session}:1 `);
        await tab(sh, 'clippy daemon rest', /\$ clippy daemon restart $/m);
        await tab(sh, 'clippy map --plan zz-p', /\$ clippy map --plan zz-plan\.yaml $/m);
        // --option=VALUE: bash splits the word at '='; the value completes after it.
        await tab(sh, 'clippy new --preset=cla', /\$ clippy new --preset=claude $/m);
        await tab(sh, 'clippy map --plan=zz-p', /\$ clippy map --plan=zz-plan\.yaml $/m);
        await tab(
          sh,
          `clippy relay --focused-to=${session.slice(0, 6)}`,
          `$ clippy relay --focused-to=${session} `,
        );
        await tab(sh, `clippy new --preset=claude --na`, /\$ clippy new --preset=claude --name $/m);
        // No candidate: the word is left as typed.
        sh.write(`clippy attach nomatch\t`);
        // Fixed: a completion that does not come cannot be awaited; bash would have written
        // one within this (the candidates above came far sooner).
        await new Promise((r) => setTimeout(r, 500));
        await tab(sh, 'x', /\$ clippy attach nomatchx$/m);
        await exit(sh);
      } finally {
        await sh.dispose();
      }
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'zsh: the script, autoloaded from fpath, completes a live session and its turn IDs',
    async (ctx) => {
      const missing = programMissing('zsh');
      if (missing) return ctx.skip(missing);
      const dir = path.join(scripts, 'zfunc');
      fs.mkdirSync(dir);
      fs.copyFileSync(await script('zsh', '_clippy'), path.join(dir, '_clippy'));
      const init = `fpath=(${dir} $fpath); autoload -Uz compinit; compinit -u -D`;
      const load = spawnSync('zsh', ['-f', '-c', `${init}; source ${dir}/_clippy`], {
        env,
        encoding: 'utf8',
      });
      expect(load.stderr).toBe('');
      expect(load.status).toBe(0);
      const sh = CliPty.shell('exec zsh -f -i', { env: { ...env, PS1: '%% ' }, cwd: scripts });
      try {
        sh.write(`${init}\n`);
        await tab(sh, 'clippy atta', /% clippy attach $/m);
        await tab(sh, `clippy attach ${session.slice(0, 6)}`, `% clippy attach ${session} `);
        await tab(sh, `clippy show ${session}:`, `% clippy show ${session}:1 `);
        await tab(sh, 'clippy map --plan zz-p', /% clippy map --plan zz-plan\.yaml $/m);
        // zsh blanks a longer line it replaced with spaces: they stay on the screen's row.
        await tab(sh, 'clippy new --preset=cla', /% clippy new --preset=claude +$/m);
        await tab(sh, 'clippy map --plan=zz-p', /% clippy map --plan=zz-plan\.yaml $/m);
        await tab(
          sh,
          `clippy relay --focused-to=${session.slice(0, 6)}`,
          `% clippy relay --focused-to=${session} `,
        );
        await exit(sh);
      } finally {
        await sh.dispose();
      }
    },
    E2E_TIMEOUT_MS,
  );

  it(
    'fish: complete -C offers the live session and its turn IDs with descriptions',
    async (ctx) => {
      const missing = programMissing('fish');
      if (missing) return ctx.skip(missing);
      const file = await script('fish', 'clippy.fish');
      const complete = (line: string) =>
        spawnSync('fish', ['--no-config', '-c', `source ${file}; complete -C '${line}'`], {
          env,
          encoding: 'utf8',
          cwd: scripts,
        });
      const attach = complete('clippy attach ');
      expect(attach.stderr).toBe('');
      expect(attach.stdout.split('\n')).toContainEqual(
        expect.stringMatching(new RegExp(`^${session}\\tidle bash`)),
      );
      expect(complete(`clippy show ${session}:`).stdout).toMatch(
        new RegExp(`^${session}:1\\techo completion-turn$`, 'm'),
      );
      expect(complete('clippy rel').stdout).toMatch(/^relay\t/m);
      expect(complete('clippy map --plan zz-p').stdout).toBe('zz-plan.yaml\n');
      expect(complete('clippy map --plan=zz-p').stdout).toBe('--plan=zz-plan.yaml\n');
      expect(complete('clippy new --preset=cla').stdout).toBe('--preset=claude\n');
      expect(complete(`clippy relay --focused-to=${session.slice(0, 6)}`).stdout).toMatch(
        new RegExp(`^--focused-to=${session}\\tidle bash`, 'm'),
      );
      // The presets offered are exactly the table's (no presets.json here).
      expect(complete('clippy new --preset ').stdout.trim().split('\n').sort()).toEqual(
        Object.keys(BUILTIN_PRESETS).sort(),
      );
    },
    E2E_TIMEOUT_MS,
  );

  it(
    '__complete without a daemon prints nothing and starts none',
    async () => {
      const e = new DaemonEnv();
      try {
        const r = await runClippy(['__complete', 'bash', '--', 'attach', ''], e.env);
        expect(r).toEqual({ code: 0, stdout: '', stderr: '' });
        expect(fs.existsSync(e.socket)).toBe(false);
        // Commands still complete: they come from the CLI, not the daemon.
        const cmds = await runClippy(['__complete', 'bash', '--', 'comp'], e.env);
        expect(cmds.stdout).toBe('completion\n');
      } finally {
        await e.dispose();
      }
    },
    E2E_TIMEOUT_MS,
  );

  it(
    '--help says how to install it for each shell',
    async () => {
      const r = await runClippy(['completion', '--help'], env);
      expect(r.stdout).toContain('~/.local/share/bash-completion/completions/clippy');
      expect(r.stdout).toContain('_clippy');
      expect(r.stdout).toContain('~/.config/fish/completions/clippy.fish');
      const bad = await runClippy(['completion', 'tcsh'], env);
      expect(bad.code).toBe(64);
    },
    E2E_TIMEOUT_MS,
  );
});

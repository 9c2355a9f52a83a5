import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BUILTIN_PRESETS } from '@clippy/turns';
import { afterAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../log.js';
import { loadTurnConfig } from '../turn-config/turn-config.js';
import { locateAgent, type AgentIdentity } from './command-line.js';
import { lastCommand } from './shell-script.js';
import { resumeArgs, wireSession } from './wire-session.js';

// Issue 44: a preset never breaks the user's command line. The channel is wired into the
// agent's own arguments wherever they sit (the agent itself, node running its script, or through
// env, nice, sh -c, npx/bunx), and a command line that is not the agent is left alone.

const CLAUDE: AgentIdentity = { bins: ['claude'], packages: ['@anthropic-ai/claude-code'] };
const dir = mkdtempSync(join(tmpdir(), 'clippy-cmdline-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const at = (command: string, args: string[], env: Record<string, string> = { HOME: '/h' }) =>
  locateAgent({ command, args, env, cwd: dir }, CLAUDE);

function own(command: string, args: string[]) {
  const found = at(command, args);
  if ('notAgent' in found) throw new Error(found.notAgent);
  return found;
}

describe('locateAgent', () => {
  it('the agent itself: its executable by name or path, node or bun running its script', () => {
    expect(own('claude', ['--model', 'x']).own).toEqual(['--model', 'x']);
    expect(own('/opt/bin/claude.exe', ['-c']).own).toEqual(['-c']);
    const script = '/usr/lib/node_modules/@anthropic-ai/claude-code/cli.js';
    const n = own('/usr/bin/node', ['--no-warnings', '-r', 'pre.js', script, '-p', 'x']);
    expect(n.own).toEqual(['-p', 'x']);
    expect(n.rebuild(['--settings', '{}', '-p', 'x']).args).toEqual([
      '--no-warnings',
      '-r',
      'pre.js',
      script,
      '--settings',
      '{}',
      '-p',
      'x',
    ]);
    expect(own('bun', ['run', 'node_modules/.bin/claude']).own).toEqual([]);
    // node with no script, or another script: not the agent.
    expect(at('node', ['-e', 'x'])).toMatchObject({ notAgent: expect.stringContaining('-e') });
    expect(at('node', ['server.js'])).toMatchObject({
      notAgent: expect.stringContaining('server.js'),
    });
  });

  it('an executable under another name that is the agent’s file (a symlink to it)', () => {
    const pkg = join(dir, 'node_modules', '@anthropic-ai', 'claude-code', 'bin');
    mkdirSync(pkg, { recursive: true });
    writeFileSync(join(pkg, 'claude.exe'), '');
    execFileSync('ln', ['-s', join(pkg, 'claude.exe'), join(dir, 'cc')]);
    expect(own('./cc', []).own).toEqual([]);
    expect(
      locateAgent(
        { command: 'cc', resolved: join(dir, 'cc'), args: ['-c'], env: {}, cwd: '/' },
        CLAUDE,
      ),
    ).toMatchObject({ own: ['-c'] });
  });

  it('env: its assignments, -i, -u and -C are the agent’s environment and folder', () => {
    const e = own('env', ['-u', 'HOME', 'FOO=1', 'claude', '--model', 'x']);
    expect(e.own).toEqual(['--model', 'x']);
    expect(e.env).toEqual({ FOO: '1' });
    expect(e.via).toEqual(['env']);
    expect(e.rebuild(['-s', '--model', 'x']).args).toEqual([
      '-u',
      'HOME',
      'FOO=1',
      'claude',
      '-s',
      '--model',
      'x',
    ]);
    const i = own('env', ['-i', '-C', 'sub', 'HOME=/x', 'claude']);
    expect(i.env).toEqual({ HOME: '/x' });
    expect(i.cwd).toBe(join(dir, 'sub'));
    // A variable the wiring sets reaches an agent whose wrapper clears the environment.
    expect(i.rebuild(['-s'], { V: '1' }).args).toEqual([
      '-i',
      '-C',
      'sub',
      'HOME=/x',
      'env',
      'V=1',
      'claude',
      '-s',
    ]);
    expect(at('env', ['-S', 'claude -x'])).toMatchObject({
      notAgent: expect.stringContaining('-S'),
    });
  });

  it('nice, npx and bunx of its package', () => {
    expect(own('nice', ['-n', '5', 'claude', '-c']).own).toEqual(['-c']);
    expect(own('nice', ['-10', 'claude']).via).toEqual(['nice']);
    const x = own('npx', ['-y', '@anthropic-ai/claude-code@2.1.197', '--model', 'x']);
    expect(x.own).toEqual(['--model', 'x']);
    expect(x.rebuild(['-s']).args).toEqual(['-y', '@anthropic-ai/claude-code@2.1.197', '-s']);
    expect(own('npx', ['-p', '@anthropic-ai/claude-code', 'claude', '-c']).own).toEqual(['-c']);
    expect(own('bunx', ['@anthropic-ai/claude-code']).via).toEqual(['bunx']);
    expect(at('npx', ['claude-helper'])).toMatchObject({
      notAgent: expect.stringContaining('claude-helper'),
    });
  });

  it('sh -c: the script’s last command, the commands before it kept byte for byte', () => {
    const b = own('bash', ['-lc', 'cd ~/p && FOO=1 exec claude --model "a b"']);
    expect(b.own).toEqual(['--model', 'a b']);
    expect(b.env.FOO).toBe('1');
    expect(b.via).toEqual(['bash -c']);
    expect(b.rebuild(['--settings', `{"a":"it's"}`, '--model', 'a b']).args).toEqual([
      '-lc',
      `cd ~/p && FOO=1 exec claude --settings '{"a":"it'\\''s"}' --model 'a b'`,
    ]);
    expect(own('zsh', ['-i', '-c', 'claude', 'zsh', 'x']).rebuild(['-s']).args).toEqual([
      '-i',
      '-c',
      'claude -s',
      'zsh',
      'x',
    ]);
    expect(own('sh', ['-c', 'env FOO=1 npx @anthropic-ai/claude-code\n']).via).toEqual([
      'sh -c',
      'env',
      'npx',
    ]);
  });

  it('anything else is not the agent, and says why', () => {
    for (const [command, args, why] of [
      ['python3', ['wrapper.py'], 'python3 is not claude'],
      ['direnv', ['exec', '.', 'claude'], 'direnv is not claude'],
      ['mise', ['exec', '--', 'claude'], 'mise is not claude'],
      ['aws-vault', ['exec', 'p', '--', 'claude'], 'aws-vault is not claude'],
      ['bash', ['-c', 'claude "$@"', 'bash', '-x'], 'a variable'],
      ['bash', ['-lc', 'claude | tee log'], 'pipes into'],
      ['bash', ['-c', 'x=$(pwd); claude'], 'command substitution'],
      ['bash', ['script.sh'], 'no -c'],
    ] as const) {
      const found = at(command, [...args]);
      expect('notAgent' in found && found.notAgent, `${command} ${args.join(' ')}`).toContain(why);
    }
  });
});

describe('lastCommand', () => {
  it('finds the last command of a script of simple commands, with its place', () => {
    const s = "cd 'my dir' && claude -x\n";
    const last = lastCommand(s);
    expect(last).toEqual({ words: ['claude', '-x'], start: 15, end: 24 });
    expect(lastCommand('a; b \\\n  c')).toMatchObject({ words: ['b', 'c'] });
    expect(lastCommand('claude # a comment')).toMatchObject({ words: ['claude'] });
    expect(lastCommand('echo "x"; claude "a\\"b" \'c d\'')).toMatchObject({
      words: ['claude', 'a"b', 'c d'],
    });
    expect(lastCommand('claude > log')).toMatchObject({ why: expect.stringContaining('redirect') });
    expect(lastCommand('cat <<EOF\nclaude\nEOF')).toMatchObject({
      why: expect.stringContaining('here-document'),
    });
    expect(lastCommand('claude *')).toMatchObject({ why: expect.stringContaining("'*'") });
    expect(lastCommand('claude "unclosed')).toMatchObject({
      why: expect.stringContaining('quote'),
    });
  });
});

describe('wireSession', () => {
  const wire = (command: string, args: string[], preset = 'claude') =>
    wireSession({
      preset: BUILTIN_PRESETS[preset]!,
      presetName: preset,
      wanted: undefined,
      config: loadTurnConfig({ XDG_CONFIG_HOME: '/nonexistent' }),
      session: 's1',
      command,
      args,
      env: { PATH: process.env.PATH ?? '' },
      cwd: dir,
      socket: '/tmp/clippy.sock',
      log: silentLogger(),
    });

  it('through `bash -lc`, the shell hands the agent exactly its arguments with the hooks', () => {
    const bin = join(dir, 'bin');
    mkdirSync(bin, { recursive: true });
    const argvFile = join(dir, 'argv.json');
    // A stand-in `claude` that records the arguments it was started with.
    writeFileSync(
      join(bin, 'claude'),
      `#!${process.execPath}\nrequire('fs').writeFileSync(${JSON.stringify(argvFile)}, JSON.stringify(process.argv.slice(2)));\n`,
    );
    chmodSync(join(bin, 'claude'), 0o755);
    const wired = wire('bash', ['-c', `PATH=${bin}:$PATH; claude --model 'a b'`]);
    expect(wired.channel).not.toBeNull();
    expect(wired.args[0]).toBe('-c');
    execFileSync('bash', wired.args, { env: { PATH: process.env.PATH ?? '' } });
    const argv = JSON.parse(readFileSync(argvFile, 'utf8')) as string[];
    expect(argv[0]).toBe('--settings');
    expect(JSON.parse(argv[1]!).hooks.Stop).toHaveLength(1);
    expect(argv.slice(2)).toEqual(['--model', 'a b']);
    wired.channel?.dispose();
  });

  it('a command line that is not the agent is left exactly as it was, and says why', () => {
    const wired = wire('python3', ['wrapper.py', '--model', 'x']);
    expect(wired.args).toEqual(['wrapper.py', '--model', 'x']);
    expect(wired.channel).toBeNull();
    expect(wired.off).toEqual({
      agent: 'claude',
      reason: expect.stringContaining('python3 is not claude'),
    });
  });

  it('every agent: its channel goes among its own arguments through env, and revive resumes there', () => {
    for (const [preset, bin] of [
      ['claude', 'claude'],
      ['codex', 'codex'],
      ['gemini', 'gemini'],
    ] as const) {
      const wired = wire('env', ['FOO=1', bin, '--x'], preset);
      expect(wired.channel, preset).not.toBeNull();
      expect(wired.args.slice(0, 2)).toEqual(['FOO=1', bin]);
      expect(wired.args.at(-1)).toBe('--x');
      // Codex is not wired (its rollout is read): its command line stays as given.
      if (preset === 'codex') expect(wired.args).toEqual(['FOO=1', bin, '--x']);
      else expect(wired.args.length).toBeGreaterThan(3);
      // The report secret rides in the session's environment, never on env's command line.
      expect(wired.env.CLIPPY_HOOK_SECRET, preset).toMatch(/^[\w-]{20,}$/);
      expect(wired.args.join(' '), preset).not.toContain(wired.env.CLIPPY_HOOK_SECRET!);
      wired.channel?.dispose();
      const resumed = resumeArgs(
        preset,
        { command: 'bash', args: ['-lc', `${bin} --x`], env: {}, cwd: dir },
        'ID',
      );
      expect(resumed, preset).toEqual({
        args: ['-lc', preset === 'codex' ? 'codex resume ID --x' : `${bin} --resume ID --x`],
      });
    }
  });
});

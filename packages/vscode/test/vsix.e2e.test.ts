import { execFile } from 'node:child_process';
import fs from 'node:fs';
import Module, { createRequire } from 'node:module';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import yauzl from 'yauzl';
import type { ClippyClient } from '@clippy/client';
import { spawnAgent, submissions } from '@clippy/testkit/agents/harness';
import { TestDaemon } from '@clippy/testkit/daemon';
import { until } from '@clippy/testkit/until';
import { eventually, messageShown, run, viewRows } from './harness.js';
import * as vscodeDouble from './vscode-double.js';
import { editor, extensionContext } from './vscode-double.js';

// The .vsix as `npm run package` makes it (offline: @vscode/vsce reads no network), and the
// bundle inside it running on its own: required as VS Code requires it, with nothing but the
// `vscode` module provided, against a real daemon.

const root = path.join(import.meta.dirname, '..');
const pkg = JSON.parse(fs.readFileSync(path.join(root, 'package.json'), 'utf8')) as {
  version: string;
  icon: string;
  repository: { url: string };
  contributes: unknown;
};

/** What vsce prints before a warning (its log's WARNING tag), on stdout or stderr. */
const VSCE_WARNING = /WARNING/;

/** The entries of a zip file, with their contents. */
function unzip(file: string): Promise<Map<string, Buffer>> {
  return new Promise((resolve, reject) => {
    yauzl.open(file, { lazyEntries: true }, (err, zip) => {
      if (err) return reject(err);
      const out = new Map<string, Buffer>();
      zip.on('error', reject);
      zip.on('end', () => resolve(out));
      zip.on('entry', (entry: yauzl.Entry) => {
        zip.openReadStream(entry, (e, stream) => {
          if (e) return reject(e);
          const chunks: Buffer[] = [];
          stream.on('data', (chunk: Buffer) => chunks.push(chunk));
          stream.on('end', () => {
            out.set(entry.fileName, Buffer.concat(chunks));
            zip.readEntry();
          });
        });
      });
      zip.readEntry();
    });
  });
}

let tmp: string;
let files: Map<string, Buffer>;
/** What packing printed: vsce lists the files, and would warn here. */
let packed: { stdout: string; stderr: string };
let d: TestDaemon;
let c: ClippyClient;
const stops: (() => void)[] = [];

beforeAll(async () => {
  tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'clippy-vsix-'));
  // The bundle `npm run build` made; the script stages it with a manifest and packs it. No
  // standard input: a warning's "continue? [y/N]" gets no answer and the packing fails.
  const child = execFile(process.execPath, [
    path.join(root, 'scripts', 'package-vsix.mjs'),
    '--out',
    tmp,
  ]);
  child.stdin?.end();
  let stdout = '';
  let stderr = '';
  child.stdout?.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (stderr += d.toString()));
  const code = await new Promise<number | null>((r) => child.once('close', r));
  packed = { stdout, stderr };
  if (code !== 0) throw new Error(`packing failed (${code}): ${stderr}${stdout}`);
  files = await unzip(path.join(tmp, `clippy-${pkg.version}.vsix`));
});

afterAll(async () => {
  for (const stop of stops.splice(0)) stop();
  await c?.close();
  await d?.stop();
  fs.rmSync(tmp, { recursive: true, force: true });
});

describe('the .vsix', () => {
  it('packs without a warning from vsce (what the Marketplace and Open VSX check)', () => {
    expect(packed.stdout + packed.stderr).not.toMatch(VSCE_WARNING);
    expect(packed.stderr).toBe('');
    expect(packed.stdout).toMatch(/DONE\s+Packaged: /);
  });

  it('holds the manifest, the bundle, the README, the licence and the icons, and nothing else of ours', () => {
    expect([...files.keys()].sort()).toEqual([
      '[Content_Types].xml',
      'extension.vsixmanifest',
      'extension/LICENSE.txt',
      'extension/dist/extension.js',
      'extension/media/activity-bar.svg',
      'extension/media/icon.png',
      'extension/package.json',
      'extension/readme.md',
    ]);
    expect(files.get('extension/LICENSE.txt')!.toString()).toBe(
      fs.readFileSync(path.join(root, '..', '..', 'LICENSE'), 'utf8'),
    );
    const manifest = JSON.parse(files.get('extension/package.json')!.toString());
    expect(manifest).toMatchObject({
      name: 'clippy',
      publisher: 'clippy',
      version: pkg.version,
      main: './dist/extension.js',
      contributes: pkg.contributes,
    });
    // CommonJS: no "type": "module" that would make Node read extension.js as an ES module.
    expect(manifest.type).toBeUndefined();
    const vsixManifest = files.get('extension.vsixmanifest')!.toString();
    expect(vsixManifest).toContain(
      `<Identity Language="en-US" Id="clippy" Version="${pkg.version}" Publisher="clippy"`,
    );
    // What the galleries show: licence, icon, repository, categories, keywords (as tags).
    expect(manifest).toMatchObject({
      license: 'MIT',
      icon: 'media/icon.png',
      repository: { type: 'git', url: pkg.repository.url },
    });
    expect(vsixManifest).toContain('<License>extension/LICENSE.txt</License>');
    expect(vsixManifest).toContain('<Icon>extension/media/icon.png</Icon>');
    expect(vsixManifest).toContain('<Categories>AI,Other</Categories>');
    expect(vsixManifest).toMatch(/<Tags>[^<]*\bclaude\b[^<]*<\/Tags>/);
    expect(vsixManifest).toContain(
      `<Property Id="Microsoft.VisualStudio.Services.Links.Source" Value="${pkg.repository.url}" />`,
    );
  });

  it('its icon is a 256×256 PNG (the galleries take no SVG)', () => {
    const png = files.get('extension/media/icon.png')!;
    // The PNG signature, then the IHDR chunk: width and height, big-endian.
    expect(png.subarray(0, 8)).toEqual(
      Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]),
    );
    expect(png.subarray(12, 16).toString('latin1')).toBe('IHDR');
    expect([png.readUInt32BE(16), png.readUInt32BE(20)]).toEqual([256, 256]);
    // The activity bar's icon is an SVG shape (VS Code paints it in the theme's colour).
    expect(files.get('extension/media/activity-bar.svg')!.toString()).toMatch(
      /^<svg [^>]*viewBox="0 0 24 24"/,
    );
  });

  it('runs on its own: only `vscode` is provided, as VS Code provides it', async () => {
    const bundle = path.join(tmp, 'extension.js');
    fs.writeFileSync(bundle, files.get('extension/dist/extension.js')!);
    // Every require() of the bundle, to check it needs nothing from node_modules.
    const required: string[] = [];
    const loader = Module as unknown as { _load: (r: string, ...rest: unknown[]) => unknown };
    const load = loader._load;
    loader._load = function (request: string, ...rest: unknown[]) {
      if (request === 'vscode') return vscodeDouble;
      if (request !== bundle) required.push(request);
      return load.call(this, request, ...rest);
    };
    let ext: { activate(ctx: unknown): unknown };
    try {
      ext = createRequire(bundle)(bundle) as typeof ext;
    } finally {
      loader._load = load;
    }
    const builtins = new Set(Module.builtinModules);
    expect(required.filter((r) => !builtins.has(r.replace(/^node:/, '')))).toEqual([]);

    d = await TestDaemon.start();
    c = await d.connect();
    const log = await spawnAgent(d, c, 'alpha', 'claude', 'claude');
    process.env.XDG_RUNTIME_DIR = d.env.runtimeDir;
    delete process.env.CLIPPY_SOCKET;
    editor.viewVisible = true;
    const context = extensionContext();
    ext.activate(context);
    stops.push(() => context.subscriptions.splice(0).forEach((s) => s.dispose()));
    await eventually(
      async () => (await viewRows()).join('\n') === 'alpha  idle · 0 turns',
      'the view of the bundled extension',
    );
    editor.openEditor('from the packaged extension', 'from the packaged extension');
    const before = submissions(log).length;
    await run('clippy.sendSelection', 'alpha');
    await until(() => submissions(log).length > before, 'alpha received it');
    expect(submissions(log).at(-1)?.text).toBe('from the packaged extension');
    await messageShown('info', /^clippy: sent 1 line to alpha$/);
  });
});

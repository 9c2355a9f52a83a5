// The package boundaries (eslint.boundaries.js) are only worth something if `npm run lint` fails
// when one is crossed: each case lints a file that does not exist on disk, placed in the package
// it would break, through the repository's own ESLint config.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { ESLint } from 'eslint';
import { describe, expect, it } from 'vitest';
import { ALLOWED } from '../eslint.boundaries.js';

const repoRoot = fileURLToPath(new URL('..', import.meta.url));
/** Loading the config and typescript-eslint's parser takes a few seconds on a busy 2-core box. */
const LINT_TIMEOUT_MS = 60_000;

const eslint = new ESLint({ cwd: repoRoot });

/** The boundary errors ESLint reports for `code` as if it were the file at `path`. */
async function boundaryErrors(path: string, code: string): Promise<string[]> {
  const [result] = await eslint.lintText(code, { filePath: `${repoRoot}/${path}` });
  return (result?.messages ?? [])
    .filter((m) => m.ruleId?.startsWith('no-restricted-') || m.ruleId?.startsWith('clippy/'))
    .map((m) => `${m.line}: ${m.ruleId}: ${m.message}`);
}

describe('package boundaries in npm run lint', { timeout: LINT_TIMEOUT_MS }, () => {
  it('refuses a package importing one above it', async () => {
    expect(
      await boundaryErrors(
        'packages/repomap/src/boundary-check.ts',
        "import { startBroker } from '@clippy/broker';\nexport const a = startBroker;\n",
      ),
    ).toEqual([
      `1: no-restricted-imports: '@clippy/broker' import is restricted from being used by a pattern. repomap may import nothing of ours (docs/architecture.md "Packages").`,
    ]);
    expect(
      await boundaryErrors(
        'packages/navigator/src/boundary-check.ts',
        "export { Broker } from '@clippy/broker';\n" +
          "export const p = () => import('@clippy/protocol');\n",
      ),
    ).toEqual([
      `1: no-restricted-imports: '@clippy/broker' import is restricted from being used by a pattern. navigator may import client, repomap, reports (docs/architecture.md "Packages").`,
      `2: no-restricted-syntax: navigator may import client, repomap, reports (docs/architecture.md "Packages").`,
    ]);
    expect(
      await boundaryErrors(
        'packages/protocol/src/boundary-check.ts',
        "import type { Client } from '@clippy/client';\nexport type C = Client;\n",
      ),
    ).toHaveLength(1);
  });

  it('keeps the VS Code extension a client: client and protocol, never the daemon', async () => {
    expect(
      await boundaryErrors(
        'packages/vscode/src/boundary-check.ts',
        "import { connect } from '@clippy/client';\n" +
          "import { PROTOCOL_VERSION } from '@clippy/protocol';\n" +
          "import { startBroker } from '@clippy/broker';\n" +
          'export const a = [connect, PROTOCOL_VERSION, startBroker];\n',
      ),
    ).toEqual([
      `3: no-restricted-imports: '@clippy/broker' import is restricted from being used by a pattern. vscode may import client, protocol (docs/architecture.md "Packages").`,
    ]);
  });

  it('keeps the ACP adapter a client of the daemon, and the CLI its only importer', async () => {
    expect(
      await boundaryErrors(
        'packages/acp/src/boundary-check.ts',
        "import { connect } from '@clippy/client';\n" +
          "import { BrokerError } from '@clippy/protocol';\n" +
          "import { readMenu } from '@clippy/turns';\n" +
          'export const a = [connect, BrokerError, readMenu];\n',
      ),
    ).toEqual([
      `3: no-restricted-imports: '@clippy/turns' import is restricted from being used by a pattern. acp may import client, protocol (docs/architecture.md "Packages").`,
    ]);
    expect(
      await boundaryErrors(
        'packages/cli/src/boundary-check.ts',
        "import { serveAcp } from '@clippy/acp';\nexport const s = serveAcp;\n",
      ),
    ).toEqual([]);
    expect(
      await boundaryErrors(
        'packages/web/src/boundary-check.ts',
        "import { serveAcp } from '@clippy/acp';\nexport const s = serveAcp;\n",
      ),
    ).toHaveLength(1);
  });

  it('keeps the MCP server a client of the daemon, and the CLI its only importer', async () => {
    expect(
      await boundaryErrors(
        'packages/mcp/src/boundary-check.ts',
        "import { connect } from '@clippy/client';\n" +
          "import { parseTurnId } from '@clippy/protocol';\n" +
          "import { startBroker } from '@clippy/broker';\n" +
          'export const a = [connect, parseTurnId, startBroker];\n',
      ),
    ).toEqual([
      `3: no-restricted-imports: '@clippy/broker' import is restricted from being used by a pattern. mcp may import client, protocol (docs/architecture.md "Packages").`,
    ]);
    const serve = "import { serveMcp } from '@clippy/mcp';\nexport const s = serveMcp;\n";
    expect(await boundaryErrors('packages/cli/src/boundary-check.ts', serve)).toEqual([]);
    expect(await boundaryErrors('packages/acp/src/boundary-check.ts', serve)).toHaveLength(1);
  });

  it('gives the web page the client core only: the rest of client loads Node modules', async () => {
    expect(
      await boundaryErrors(
        'packages/web/src/page/boundary-check.ts',
        "import { RpcCore } from '@clippy/client/core';\n" +
          "import { connect } from '@clippy/client';\n" +
          "import { copyText } from '@clippy/system/clipboard';\n" +
          'export const a = [RpcCore, connect, copyText];\n',
      ),
    ).toEqual([
      `2: no-restricted-imports: '@clippy/client' import is restricted from being used by a pattern. web may import protocol, client/core (docs/architecture.md "Packages").`,
      `3: no-restricted-imports: '@clippy/system/clipboard' import is restricted from being used by a pattern. web may import protocol, client/core (docs/architecture.md "Packages").`,
    ]);
  });

  it('keeps testkit out of shipped code', async () => {
    const code = "import { until } from '@clippy/testkit/until';\nexport const u = until;\n";
    expect(await boundaryErrors('packages/broker/src/boundary-check.ts', code)).toEqual([
      `1: no-restricted-imports: '@clippy/testkit/until' import is restricted from being used by a pattern. broker may import protocol, turns, client, system (docs/architecture.md "Packages").`,
    ]);
    expect(await boundaryErrors('packages/broker/src/boundary-check.test.ts', code)).toEqual([]);
  });

  it('refuses node-pty outside system/src/pty/', async () => {
    expect(
      await boundaryErrors(
        'packages/broker/src/sessions/boundary-check.ts',
        "import * as pty from 'node-pty';\n" +
          'export const p = pty;\n' +
          "export const q = () => import('node-pty');\n",
      ),
    ).toEqual([
      `1: no-restricted-imports: 'node-pty' import is restricted from being used by a pattern. node-pty is imported in system/src/pty/ only; other code uses PtyProcess.`,
      `3: no-restricted-syntax: node-pty is imported in system/src/pty/ only; other code uses PtyProcess.`,
    ]);
    expect(
      await boundaryErrors(
        'packages/cli/src/boundary-check.ts',
        "import { createRequire } from 'node:module';\n" +
          "export const p = createRequire(import.meta.url)('node-pty');\n",
      ),
    ).toHaveLength(1);
    const allowed = "import * as pty from 'node-pty';\nexport const p = pty;\n";
    expect(await boundaryErrors('packages/system/src/pty/boundary-check.ts', allowed)).toEqual([]);
    expect(await boundaryErrors('packages/broker/src/pty/boundary-check.ts', allowed)).toHaveLength(
      1,
    );
    expect(await boundaryErrors('packages/testkit/src/boundary-check.ts', allowed)).toEqual([]);
  });

  it('keeps the turn engine free of I/O, timers and clocks', async () => {
    expect(
      await boundaryErrors(
        'packages/turns/src/boundary-check.ts',
        "import { readFileSync } from 'node:fs';\n" +
          "import { Socket } from 'net';\n" +
          'export const read = readFileSync;\n' +
          'export const sock = Socket;\n' +
          'export const later = (f: () => void) => setTimeout(f, 10);\n' +
          'export const now = () => Date.now();\n' +
          'export const date = () => new Date();\n' +
          "import { StringDecoder } from 'node:string_decoder';\n" +
          'export const d = new StringDecoder();\n',
      ),
    ).toEqual([
      `1: no-restricted-imports: 'node:fs' import is restricted from being used by a pattern. turns is pure (docs/architecture.md "Packages"): of Node's modules it may import string_decoder only (no I/O).`,
      `2: no-restricted-imports: 'net' import is restricted from being used by a pattern. turns is pure (docs/architecture.md "Packages"): of Node's modules it may import string_decoder only (no I/O).`,
      `5: no-restricted-globals: Unexpected use of 'setTimeout'. turns is pure: no timers of its own (docs/architecture.md "Packages").`,
      `6: no-restricted-properties: 'Date.now' is restricted from being used. turns is pure: time is passed in, never read (docs/architecture.md "Packages").`,
      `7: no-restricted-syntax: turns is pure: time is passed in, never read (docs/architecture.md "Packages").`,
    ]);
    // Its tests read recorded screens from disk.
    expect(
      await boundaryErrors(
        'packages/turns/src/boundary-check.test.ts',
        "import { readFileSync } from 'node:fs';\n" +
          "import { corpusDir } from '@clippy/testkit/paths';\n" +
          'export const r = [readFileSync, corpusDir, Date.now()];\n',
      ),
    ).toEqual([]);
  });

  it('refuses a relative import into another package, in shipped and test code', async () => {
    const code =
      "import navigate from '../../cli/src/commands/navigate.js';\n" +
      "import { plan } from '../src/plan.js';\n" +
      'export const a = [navigate, plan];\n';
    const message = `clippy/no-relative-across-packages: navigator imports packages/cli's files by a relative path: a package reaches another only by its name (@clippy/cli), where docs/architecture.md "Packages" allows it.`;
    expect(await boundaryErrors('packages/navigator/test/boundary-check.ts', code)).toEqual([
      `1: ${message}`,
    ]);
    expect(
      await boundaryErrors(
        'packages/broker/src/sessions/boundary-check.ts',
        "export const t = () => import('../../../turns/src/index.js');\n" +
          "export { x } from '../pty/x.js';\n",
      ),
    ).toHaveLength(1);
  });

  it('refuses a package.json dependency that points up or across the layers', async () => {
    const manifest = (deps: object, devDeps: object) =>
      JSON.stringify({ name: 'x', dependencies: deps, devDependencies: devDeps }, null, 2) + '\n';
    expect(
      await boundaryErrors(
        'packages/repomap/package.json',
        manifest({ '@clippy/broker': '0.1.0', zod: '^4' }, { '@clippy/testkit': '0.1.0' }),
      ),
    ).toEqual([
      `4: clippy/package-dependencies: repomap lists @clippy/broker in dependencies, which points up or across its layer: repomap may depend on nothing of ours (docs/architecture.md "Packages").`,
    ]);
    // What the layers allow, what a package runs without importing it, testkit for tests.
    expect(
      await boundaryErrors(
        'packages/cli/package.json',
        manifest(
          { '@clippy/client': '0.1.0', '@clippy/broker': '0.1.0' },
          { '@clippy/testkit': '0.1.0' },
        ),
      ),
    ).toEqual([]);
    expect(
      await boundaryErrors(
        'packages/client/package.json',
        manifest({}, { '@clippy/testkit': '0.1.0', '@clippy/cli': '0.1.0' }),
      ),
    ).toHaveLength(1);
    expect(
      await boundaryErrors(
        'packages/testkit/package.json',
        manifest({ '@clippy/broker': '1' }, {}),
      ),
    ).toHaveLength(1);
  });

  it("agrees with docs/architecture.md's table of what each package may import", () => {
    const page = readFileSync(`${repoRoot}/docs/architecture.md`, 'utf8');
    const section = page.slice(
      page.indexOf('## Packages'),
      page.indexOf('\n## ', page.indexOf('## Packages') + 1),
    );
    const table = Object.fromEntries(
      [...section.matchAll(/^\| `([a-z]+)` +\| ([^|]+)\|/gmu)].map(([, pkg, may]) => [
        pkg,
        [...may!.matchAll(/`([a-z/]+)`/gu)].map((m) => m[1]),
      ]),
    );
    expect(table).toEqual(ALLOWED);
  });
});

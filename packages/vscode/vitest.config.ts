import { fileURLToPath } from 'node:url';
import { defineProject } from 'vitest/config';
import { PROCESS_BOUND } from '../../vitest.workers.js';

export default defineProject({
  resolve: {
    conditions: ['source'],
    // VS Code's API is the one thing replaced: by a double that records what the extension
    // asked the editor to do. The daemon, its sessions and the CLI are real.
    alias: { vscode: fileURLToPath(new URL('./test/vscode-double.ts', import.meta.url)) },
  },
  ssr: { resolve: { conditions: ['source'], externalConditions: ['source'] } },
  test: {
    name: 'vscode',
    ...PROCESS_BOUND,
    // Each file in a process of its own, unlike the other process-bound projects: the VS Code
    // double keeps what an extension registered (status bar items, commands, views) in module
    // state, and with files sharing it a later file read the status bar item an earlier
    // file's extension had left.
    isolate: true,
    include: ['src/**/*.test.ts', 'test/**/*.test.ts'],
    // A real daemon, real agents in PTYs, the real CLI: seconds, not milliseconds.
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});

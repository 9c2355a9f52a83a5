/**
 * The environment for the clippy CLI the extension runs (and so for a daemon it starts, which
 * outlives VS Code): the editor's own, less what belongs to VS Code's process — its extension
 * host runs with ELECTRON_RUN_AS_NODE and VSCODE_* variables (IPC hooks, its PID), which would
 * mislead programs run long after, in sessions that have nothing to do with this window.
 */
export function cliEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const out: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(env)) {
    if (k === 'ELECTRON_RUN_AS_NODE' || k.startsWith('VSCODE_')) continue;
    out[k] = v;
  }
  return out;
}

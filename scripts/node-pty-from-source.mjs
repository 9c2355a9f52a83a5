// Builds node-pty from source on Linux (run by the root `postinstall`). Its prebuilt Linux
// binary was compiled without close_range(), and its fallback stops marking descriptors
// close-on-exec at the first gap above fd 15: a session's child would then inherit the PTY
// masters of other sessions and the daemon's own inherited descriptors (docs/broker.md,
// "Security model"). Compiled here, the child closes every descriptor above 2 before exec.
// macOS spawns through posix_spawn with POSIX_SPAWN_CLOEXEC_DEFAULT: its prebuilt is safe.
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

if (process.platform === 'linux') {
  const root = dirname(createRequire(import.meta.url).resolve('node-pty/package.json'));
  // node-pty's install removes its prebuilds when it builds from source: nothing left to do.
  const built = existsSync(join(root, 'build', 'Release', 'pty.node'));
  if (!built || existsSync(join(root, 'prebuilds', `linux-${process.arch}`))) {
    const r = spawnSync('npm', ['rebuild', 'node-pty'], {
      stdio: 'inherit',
      env: { ...process.env, npm_config_build_from_source: 'true' },
    });
    if (r.status !== 0) {
      console.error('clippy: building node-pty from source failed (needs python3, make and g++)');
      process.exit(r.status ?? 1);
    }
  }
}

// Builds node-pty from source on Linux (run by the root `postinstall`). Its prebuilt Linux
// binary was compiled without close_range(), and its fallback stops marking descriptors
// close-on-exec at the first gap above fd 15: a session's child would then inherit the PTY
// masters of other sessions and the daemon's own inherited descriptors (docs/broker.md,
// "Security model"). Compiled here, the child closes every descriptor above 2 before exec.
// macOS spawns through posix_spawn with POSIX_SPAWN_CLOEXEC_DEFAULT: its prebuilt is safe.
import { spawnSync } from 'node:child_process';

if (process.platform === 'linux') {
  const r = spawnSync('npm', ['rebuild', 'node-pty'], {
    stdio: 'inherit',
    env: { ...process.env, npm_config_build_from_source: 'true' },
  });
  if (r.status !== 0) {
    console.error('clippy: building node-pty from source failed (needs python3, make and g++)');
    process.exit(r.status ?? 1);
  }
}

import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from './paths.js';

export interface OtherRelease {
  /** The package version the copied daemon reports (`hello_ack`'s `package_version`). */
  version?: string;
  /** The protocol version the copied daemon speaks (its bundle says so). */
  protocolVersion?: number;
}

/**
 * The line of the daemon's bundle (the broker's scripts/bundle.mjs: protocol's constants are in
 * it) that carries the protocol version, rewritten in the copy.
 */
const PROTOCOL_VERSION_LINE = /^var PROTOCOL_VERSION = \d+;$/m;
/** The daemon's bundle, which the copy's bin/clippyd.js runs. */
const DAEMON_BUNDLE = path.join('dist', 'clippyd.mjs');

function copyPackage(name: string, to: string, version: string | undefined): void {
  const from = path.join(repoRoot, 'packages', name);
  for (const part of ['dist', 'bin']) {
    if (fs.existsSync(path.join(from, part)))
      fs.cpSync(path.join(from, part), path.join(to, part), { recursive: true });
  }
  const pkg = JSON.parse(fs.readFileSync(path.join(from, 'package.json'), 'utf8'));
  fs.writeFileSync(
    path.join(to, 'package.json'),
    JSON.stringify({ ...pkg, ...(version ? { version } : {}) }),
  );
}

/**
 * The real daemon as another release would install it: a copy of the built broker under `root`
 * with another package version and, when asked, speaking another protocol version (its bundle
 * says so). Everything else resolves to the packages installed here, as beside an old install.
 * Returns the copy's `clippyd.js`, to start directly or through CLIPPYD_PATH; the copy goes when
 * `root` is removed (a DaemonEnv's root, say).
 */
export function otherRelease(root: string, release: OtherRelease): string {
  const copy = fs.mkdtempSync(path.join(root, 'other-release-'));
  copyPackage('broker', copy, release.version);
  fs.symlinkSync(path.join(repoRoot, 'node_modules'), path.join(copy, 'node_modules'));
  if (release.protocolVersion !== undefined) {
    const bundle = path.join(copy, DAEMON_BUNDLE);
    const text = fs.readFileSync(bundle, 'utf8');
    if (!PROTOCOL_VERSION_LINE.test(text))
      throw new Error(`no PROTOCOL_VERSION line in ${bundle}: update testkit's other-release`);
    fs.writeFileSync(
      bundle,
      text.replace(PROTOCOL_VERSION_LINE, `var PROTOCOL_VERSION = ${release.protocolVersion};`),
    );
  }
  return path.join(copy, 'bin', 'clippyd.js');
}

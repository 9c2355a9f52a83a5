import fs from 'node:fs';
import path from 'node:path';
import { repoRoot } from './paths.js';

export interface OtherRelease {
  /** The package version the copied daemon reports (`hello_ack`'s `package_version`). */
  version?: string;
  /** The protocol version the copied daemon speaks (its copy of @clippy/protocol says so). */
  protocolVersion?: number;
}

/** The line of protocol's built constants that carries the version, rewritten in the copy. */
const PROTOCOL_VERSION_LINE = /^export const PROTOCOL_VERSION = \d+;$/m;

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
 * with another package version and, when asked, a copy of @clippy/protocol speaking another
 * protocol version. Everything else resolves to the packages installed here, as beside an old
 * install. Returns the copy's `clippyd.js`, to start directly or through CLIPPYD_PATH; the copy
 * goes when `root` is removed (a DaemonEnv's root, say).
 */
export function otherRelease(root: string, release: OtherRelease): string {
  const copy = fs.mkdtempSync(path.join(root, 'other-release-'));
  copyPackage('broker', copy, release.version);
  const modules = path.join(copy, 'node_modules');
  const installed = path.join(repoRoot, 'node_modules');
  if (release.protocolVersion === undefined) {
    fs.symlinkSync(installed, modules);
  } else {
    // Every installed package as it is, but @clippy/protocol: the copy's own.
    fs.mkdirSync(path.join(modules, '@clippy'), { recursive: true });
    for (const entry of fs.readdirSync(installed)) {
      if (entry !== '@clippy')
        fs.symlinkSync(path.join(installed, entry), path.join(modules, entry));
    }
    for (const entry of fs.readdirSync(path.join(installed, '@clippy'))) {
      if (entry === 'protocol') continue;
      fs.symlinkSync(path.join(installed, '@clippy', entry), path.join(modules, '@clippy', entry));
    }
    const protocol = path.join(modules, '@clippy', 'protocol');
    copyPackage('protocol', protocol, release.version);
    const constants = path.join(protocol, 'dist', 'constants.js');
    const text = fs.readFileSync(constants, 'utf8');
    if (!PROTOCOL_VERSION_LINE.test(text))
      throw new Error(`no PROTOCOL_VERSION line in ${constants}: update testkit's other-release`);
    fs.writeFileSync(
      constants,
      text.replace(
        PROTOCOL_VERSION_LINE,
        `export const PROTOCOL_VERSION = ${release.protocolVersion};`,
      ),
    );
  }
  return path.join(copy, 'bin', 'clippyd.js');
}

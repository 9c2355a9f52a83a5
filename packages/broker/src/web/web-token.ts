import { randomBytes } from 'node:crypto';
import { chmodSync, mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';

/** Random bytes in a token: as many as Jupyter's, far beyond guessing over HTTP. */
const TOKEN_BYTES = 24;
/** What a token file must hold: 48 hex digits (anything else is replaced, never trusted). */
const TOKEN_SHAPE = /^[0-9a-f]{48}$/;

/**
 * The web view's token, kept in a file only the user can read (0600, in a 0700 directory under
 * the state directory) so that it survives restarts of the web view and of the daemon: a tab
 * signed in once reconnects by itself. `rotate` writes a new one (`clippy web --rotate`).
 */
export class WebTokenFile {
  constructor(readonly path: string) {}

  /** The kept token, or a new one written now when there is none (or it is not a token). */
  read(): string {
    try {
      const kept = readFileSync(this.path, 'utf8').trim();
      if (TOKEN_SHAPE.test(kept)) {
        // A file someone made readable to others is tightened, not trusted less: it is ours.
        chmodSync(this.path, 0o600);
        return kept;
      }
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    return this.rotate();
  }

  /** A new token, written (atomically, 0600) before it is used. */
  rotate(): string {
    const token = randomBytes(TOKEN_BYTES).toString('hex');
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const temporary = `${this.path}.${process.pid}.tmp`;
    writeFileSync(temporary, `${token}\n`, { mode: 0o600 });
    renameSync(temporary, this.path);
    return token;
  }
}

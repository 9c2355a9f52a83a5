import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, rmSync } from 'node:fs';
import { dirname } from 'node:path';
import { HandlerError } from '../errors.js';
import { NotOwnError, readOwnFileSync, writeOwnFileSync } from '../own-files.js';

/** Random bytes in a token: as many as Jupyter's, far beyond guessing over HTTP. */
const TOKEN_BYTES = 24;
/** What a token file must hold: 48 hex digits (anything else is replaced, never trusted). */
const TOKEN_SHAPE = /^[0-9a-f]{48}$/;

/**
 * The web view's token, kept in a file only the user can read (0600, in a 0700 directory under
 * the state directory) so that it survives restarts of the web view and of the daemon: a tab
 * signed in once reconnects by itself. `rotate` writes a new one (`clippy web --rotate`). The
 * file is never read or written through a symbolic link, and one that is not the user's own is
 * refused (web_unavailable, saying why): another user's planted token would let them in.
 */
export class WebTokenFile {
  constructor(readonly path: string) {}

  /** The kept token, or a new one written now when there is none (or it is not a token). */
  read(): string {
    try {
      // A file someone made readable to others is tightened, not trusted less: it is ours.
      const kept = readOwnFileSync(this.path, 0o600).toString('utf8').trim();
      if (TOKEN_SHAPE.test(kept)) return kept;
    } catch (err) {
      if (err instanceof NotOwnError) throw refused(err);
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    }
    return this.rotate();
  }

  /** A new token, written (atomically, 0600) before it is used. */
  rotate(): string {
    const token = randomBytes(TOKEN_BYTES).toString('hex');
    mkdirSync(dirname(this.path), { recursive: true, mode: 0o700 });
    const temporary = `${this.path}.${process.pid}.tmp`;
    // A leftover of an earlier run (or anything else by that name) is not written through.
    rmSync(temporary, { force: true });
    try {
      writeOwnFileSync(temporary, `${token}\n`);
    } catch (err) {
      throw err instanceof NotOwnError ? refused(err) : err;
    }
    // rename replaces a link at the token's name, never what it points to.
    renameSync(temporary, this.path);
    return token;
  }
}

function refused(err: NotOwnError): HandlerError {
  return new HandlerError(
    'web_unavailable',
    `the web view's token file cannot be used: ${err.message}`,
  );
}

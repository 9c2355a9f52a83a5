import { rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { HandlerError } from '../errors.js';

/**
 * The `file` sink: overwrites `path` with the data. Written to a temporary file beside it and
 * renamed, so a reader never sees half a turn and a failed write leaves the old file intact.
 */
export async function deliverToFile(path: string, data: Uint8Array): Promise<void> {
  const tmp = join(dirname(path), `.${basename(path)}.clippy-${process.pid}-${Date.now()}`);
  try {
    await writeFile(tmp, data, { mode: 0o600 });
    await rename(tmp, path);
  } catch (err) {
    await rm(tmp, { force: true }).catch(() => {});
    throw new HandlerError(
      'file_write_failed',
      `could not write ${path}: ${(err as Error).message}`,
    );
  }
}

import v8 from 'node:v8';

/**
 * Decodes a field of an index entry that the tag cache stores serialized (outline, words). Only
 * a cache damaged on disk fails here (writes are atomic): the error names the file and the way
 * out.
 */
export function deserializeCached<T>(blob: Uint8Array, what: string, filePath: string): T {
  try {
    return v8.deserialize(blob) as T;
  } catch (err) {
    throw new Error(
      `the cached ${what} of ${filePath} cannot be read (${(err as Error).message}): ` +
        'run again with --no-cache, or delete the cache directory',
    );
  }
}

// The part of fs-native-extensions (CommonJS, no types of its own) the history lock uses.
declare module 'fs-native-extensions' {
  /**
   * Takes an open-file-description lock (`fcntl(F_OFD_SETLK)` on Linux) on `fd`, exclusive
   * unless `shared`; false when another open file holds a conflicting one.
   */
  export function tryLock(fd: number, opts?: { shared?: boolean }): boolean;
}

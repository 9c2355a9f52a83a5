// A session's diff as git writes it: the daemon's `diff` and `clippy diff` run where the
// worktree is must print the same bytes, so both take git's arguments, environment and the
// patch of a file git does not track yet from here.
export * from './diff-git.js';
export * from './diff-text.js';
export * from './new-files.js';

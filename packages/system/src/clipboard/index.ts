// The clipboard programs (wl-copy, xclip, xsel, pbcopy, clip.exe): the daemon's clipboard
// delivery and the CLI's own copies (reports, `map --copy`, `clippy doctor`) find and run them
// the same way.
export * from './clipboard-tools.js';
export * from './clipboard.js';

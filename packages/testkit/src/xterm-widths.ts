import unicode11 from '@xterm/addon-unicode11';

/** What the width setting needs of a headless xterm (its typings differ by package). */
interface WidthsTerminal {
  loadAddon(addon: InstanceType<typeof unicode11.Unicode11Addon>): void;
  unicode: { activeVersion: string };
}

/**
 * Gives a test's headless xterm the character widths the daemon's screen model uses (Unicode 11,
 * as the agents and the user's terminal count them: an emoji two cells), so a screen rendered
 * in a test is the screen the daemon sees. The terminal needs `allowProposedApi`.
 */
export function useUserWidths(term: WidthsTerminal): void {
  term.loadAddon(new unicode11.Unicode11Addon());
  term.unicode.activeVersion = '11';
}

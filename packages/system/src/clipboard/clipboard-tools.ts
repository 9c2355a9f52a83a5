// Moved from protocol with clipboard.ts: the table belongs with the code that runs it.
/**
 * The clipboard programs clippy copies with, in the order it tries them: the daemon for
 * `deliver --sink clipboard`, the CLI for reports and `map --copy`, and `clippy doctor` to say
 * which one that will be. One table, so that the three agree.
 */
export interface ClipboardTool {
  name: string;
  args: readonly string[];
  /** What it needs to work: a variable set in the environment, or a platform. */
  needs: { env: 'WAYLAND_DISPLAY' | 'DISPLAY' } | { platform: 'macOS' | 'Windows or WSL' };
}

export const CLIPBOARD_TOOLS: readonly ClipboardTool[] = [
  { name: 'wl-copy', args: [], needs: { env: 'WAYLAND_DISPLAY' } },
  { name: 'xclip', args: ['-selection', 'clipboard'], needs: { env: 'DISPLAY' } },
  { name: 'xsel', args: ['--clipboard', '--input'], needs: { env: 'DISPLAY' } },
  { name: 'pbcopy', args: [], needs: { platform: 'macOS' } },
  { name: 'clip.exe', args: [], needs: { platform: 'Windows or WSL' } },
];

/** The machine a tool would run on: `process.platform` and `os.release()` (WSL's names Microsoft). */
export interface ClipboardHost {
  platform: string;
  release: string;
}

/** Whether `tool` can work with `env` on `host`. */
export function clipboardToolFits(
  tool: ClipboardTool,
  env: Record<string, string | undefined>,
  host: ClipboardHost,
): boolean {
  const needs = tool.needs;
  if ('env' in needs) return Boolean(env[needs.env]);
  if (needs.platform === 'macOS') return host.platform === 'darwin';
  return host.platform === 'win32' || /microsoft/iu.test(host.release);
}

/** What `tool` needs, said to a person: `$DISPLAY`, `macOS`. */
export function clipboardToolNeeds(tool: ClipboardTool): string {
  return 'env' in tool.needs ? `$${tool.needs.env}` : tool.needs.platform;
}

import { spawn, type ChildProcess } from 'node:child_process';
import type { Logger } from '../log.js';
import type { NotifyEvent, NotifyOutput } from './notify-event.js';

/** A notifier that has not ended by then is stopped: notify-send waits on D-Bus at worst. */
const DESKTOP_NOTIFY_TIMEOUT_MS = 10_000;
/** The longest body a desktop popup is given: the start of an answer, not the answer. */
const DESKTOP_BODY_CHARS = 200;

/** The program and arguments that show one notification on this desktop. */
export function desktopCommand(
  platform: NodeJS.Platform,
  title: string,
  body: string,
): { command: string; args: string[] } {
  if (platform === 'darwin')
    return {
      command: 'osascript',
      // The texts are arguments, never part of the script: no quoting to get wrong.
      args: [
        '-e',
        'on run argv',
        '-e',
        'display notification (item 2 of argv) with title (item 1 of argv)',
        '-e',
        'end run',
        title,
        body,
      ],
    };
  return { command: 'notify-send', args: ['--app-name=clippy', '--', title, body] };
}

/**
 * Why the daemon's environment has no desktop to notify, or null when it has one: on Linux a
 * display (X11 or Wayland); macOS always has its notification centre for a logged-in user.
 */
export function noDesktop(
  env: Record<string, string | undefined>,
  platform: NodeJS.Platform,
): string | null {
  if (platform === 'darwin') return null;
  if (env.DISPLAY || env.WAYLAND_DISPLAY) return null;
  return 'the daemon has no DISPLAY or WAYLAND_DISPLAY (started outside a desktop session)';
}

/**
 * Desktop notifications: `notify-send` (Linux) or `osascript` (macOS), run with the daemon's
 * environment and no shell. Nothing is shown without a desktop session; a missing program is
 * logged once, not at every event.
 */
export class DesktopOutput implements NotifyOutput {
  private readonly running = new Set<ChildProcess>();
  private missingLogged = false;

  constructor(
    private readonly env: Record<string, string | undefined>,
    private readonly log: Logger,
    private readonly platform: NodeJS.Platform = process.platform,
  ) {}

  /** Why no desktop notification can be shown, or null. */
  unavailable(): string | null {
    return noDesktop(this.env, this.platform);
  }

  deliver(e: NotifyEvent): boolean {
    if (this.unavailable()) return false;
    const body =
      e.body.length > DESKTOP_BODY_CHARS ? `${e.body.slice(0, DESKTOP_BODY_CHARS)}…` : e.body;
    const { command, args } = desktopCommand(this.platform, e.title, body);
    let child: ChildProcess;
    try {
      child = spawn(command, args, {
        env: this.env as NodeJS.ProcessEnv,
        stdio: 'ignore',
        timeout: DESKTOP_NOTIFY_TIMEOUT_MS,
      });
    } catch (err) {
      this.log.warn({ err: (err as Error).message, command }, 'desktop notification failed');
      return false;
    }
    this.running.add(child);
    child.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'ENOENT') {
        if (!this.missingLogged)
          this.log.warn({ command }, 'desktop notifications need this program on the PATH');
        this.missingLogged = true;
      } else this.log.warn({ err: err.message, command }, 'desktop notification failed');
    });
    child.on('close', () => this.running.delete(child));
    return true;
  }

  dispose(): void {
    for (const child of this.running) child.kill('SIGKILL');
    this.running.clear();
  }
}

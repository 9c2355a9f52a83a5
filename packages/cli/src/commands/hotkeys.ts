import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import type { Argv, CommandModule } from 'yargs';
import { readConfigFile } from '../config-files.js';
import { connectForCommand, withSocket, type CommonArgs } from '../connect.js';
import { CliError } from '../errors.js';
import { EXIT } from '../exit-codes.js';
import type { FeedbackMode } from '../focus/feedback.js';
import {
  DEFAULT_CAPTURE_KEY,
  DEFAULT_FEEDBACK,
  DEFAULT_PASTE_KEY,
} from '../hotkeys/default-keys.js';
import { HotkeyActions, type HotkeyAction } from '../hotkeys/hotkey-actions.js';
import { TMUX_MARKER, desktopText, systemdUnit, tmuxBindings } from '../hotkeys/install-text.js';
import { KeyGrabber } from '../hotkeys/key-grabber.js';
import { parseKeySpec, type KeySpec } from '../hotkeys/key-spec.js';
import { XDisplay } from '../x11/x11-display.js';

export { DEFAULT_CAPTURE_KEY, DEFAULT_PASTE_KEY };

interface HotkeysArgs extends CommonArgs {
  capture?: string;
  paste?: string;
  feedback?: FeedbackMode;
  display?: string;
}

interface InstallArgs {
  tmux?: boolean;
  write?: boolean;
  desktop?: 'gnome' | 'kde' | 'sway';
  service?: boolean;
}

/** How a tmux job or a desktop runs this clippy: by name when it is on PATH, else by its path. */
function clippyCommand(): string {
  const script = process.argv[1] ?? 'clippy';
  const onPath = (process.env.PATH ?? '')
    .split(path.delimiter)
    .some((dir) => dir && fs.existsSync(path.join(dir, 'clippy')));
  return onPath ? 'clippy' : `${process.execPath} ${path.resolve(script)}`;
}

/** The tmux.conf to append to: tmux's XDG location when it exists, else ~/.tmux.conf. */
function tmuxConfPath(env: NodeJS.ProcessEnv = process.env): string {
  const xdg = path.join(
    env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config'),
    'tmux',
    'tmux.conf',
  );
  return fs.existsSync(xdg) ? xdg : path.join(env.HOME || os.homedir(), '.tmux.conf');
}

function key(spec: string, option: string): KeySpec {
  try {
    return parseKeySpec(spec);
  } catch (err) {
    throw new CliError(`${option}: ${(err as Error).message}`, EXIT.usage);
  }
}

const install: CommandModule<object, InstallArgs> = {
  command: 'install',
  describe: 'Print key bindings that run capture/paste --focused (tmux, GNOME, KDE, sway, systemd)',
  builder: (y: Argv) =>
    y
      .option('tmux', { type: 'boolean', describe: 'tmux bindings (Alt+Shift+C / Alt+Shift+V)' })
      .option('write', {
        type: 'boolean',
        describe: 'with --tmux: append them to your tmux.conf (once)',
      })
      .option('desktop', {
        choices: ['gnome', 'kde', 'sway'] as const,
        describe: "the desktop's shortcut settings (also the way under Wayland)",
      })
      .option('service', {
        type: 'boolean',
        describe: 'a systemd user service that runs clippy hotkeys',
      }) as never,
  handler: (argv) => {
    const keys = { clippy: clippyCommand() };
    if (argv.write && !argv.tmux) throw new CliError('--write goes with --tmux', EXIT.usage);
    const all = !argv.tmux && !argv.desktop && !argv.service;
    if (argv.tmux && argv.write) {
      const file = tmuxConfPath();
      const current = fs.existsSync(file) ? fs.readFileSync(file, 'utf8') : '';
      if (current.includes(TMUX_MARKER)) {
        process.stdout.write(`${file} has clippy's bindings already; nothing changed\n`);
        return;
      }
      const sep = current === '' || current.endsWith('\n') ? '' : '\n';
      fs.appendFileSync(file, `${sep}${tmuxBindings(keys)}`);
      process.stdout.write(
        `added clippy's bindings to ${file}; load them: tmux source-file ${file}\n`,
      );
      return;
    }
    const parts: string[] = [];
    if (argv.tmux || all) parts.push(`# tmux (~/.tmux.conf):\n${tmuxBindings(keys)}`);
    if (argv.desktop) parts.push(desktopText(argv.desktop, keys));
    if (all) for (const d of ['gnome', 'kde', 'sway'] as const) parts.push(desktopText(d, keys));
    if (argv.service || all) parts.push(systemdUnit(keys));
    process.stdout.write(parts.join('\n'));
  },
};

/** `clippy hotkeys`: global keys that capture from and paste into the focused session (X11). */
const command: CommandModule<object, HotkeysArgs> = {
  command: 'hotkeys',
  describe: 'Capture and paste with global keys (X11; Super+Shift+C / Super+Shift+V)',
  builder: (y) =>
    withSocket(y)
      .command(install)
      .option('capture', {
        type: 'string',
        requiresArg: true,
        describe: `capture key (default: config hotkeys.capture, else ${DEFAULT_CAPTURE_KEY})`,
      })
      .option('paste', {
        type: 'string',
        requiresArg: true,
        describe: `paste key (default: config hotkeys.paste, else ${DEFAULT_PASTE_KEY})`,
      })
      .option('feedback', {
        choices: ['auto', 'desktop', 'terminal'] as const,
        describe: 'where outcomes show (default: config hotkeys.feedback, else auto)',
      })
      .option('display', {
        type: 'string',
        requiresArg: true,
        describe: 'X display (default $DISPLAY)',
      }) as never,
  handler: async (argv) => {
    const config = readConfigFile().hotkeys ?? {};
    const captureKey = key(argv.capture ?? config.capture ?? DEFAULT_CAPTURE_KEY, 'capture key');
    const pasteKey = key(argv.paste ?? config.paste ?? DEFAULT_PASTE_KEY, 'paste key');
    if (captureKey.keysym === pasteKey.keysym && captureKey.modifiers === pasteKey.modifiers) {
      throw new CliError(`the capture and paste keys are both ${captureKey.label}`, EXIT.usage);
    }
    const displayName = argv.display ?? process.env.DISPLAY;
    if (!displayName) {
      const wayland = process.env.WAYLAND_DISPLAY ? ' (Wayland has no global key grabs)' : '';
      throw new CliError(
        `no X display${wayland}: bind 'clippy capture --focused --notify' and 'clippy paste --focused --notify' in your desktop's shortcut settings (clippy hotkeys install --desktop gnome|kde|sway) or in tmux (clippy hotkeys install --tmux)`,
      );
    }
    let display: XDisplay;
    try {
      display = await XDisplay.connect(displayName);
    } catch (err) {
      throw new CliError((err as Error).message);
    }
    // The resolvers and feedback read $DISPLAY: the one the keys are grabbed on.
    process.env.DISPLAY = displayName;
    const actions = new HotkeyActions(
      async () => (await connectForCommand(argv)).client,
      argv.feedback ?? config.feedback ?? DEFAULT_FEEDBACK,
    );
    const onPress = (action: HotkeyAction) => {
      void actions.press(action).then((o) => {
        const line = `${new Date().toISOString()} ${o.ok ? 'ok' : 'error'} ${o.text} [${Math.round(o.ms)} ms, shown: ${o.shown}]\n`;
        (o.ok ? process.stdout : process.stderr).write(line);
      });
    };
    let grabber: KeyGrabber<HotkeyAction>;
    try {
      grabber = await KeyGrabber.start(
        display,
        [
          { key: captureKey, action: 'capture' },
          { key: pasteKey, action: 'paste' },
        ],
        onPress,
      );
    } catch (err) {
      display.dispose();
      throw new CliError((err as Error).message);
    }
    process.stdout.write(
      `clippy hotkeys on ${displayName}: ${captureKey.label} captures, ${pasteKey.label} pastes (Ctrl-C stops)\n`,
    );
    const code = await new Promise<number>((resolve) => {
      const stop = (signal: NodeJS.Signals) => () => resolve(128 + os.constants.signals[signal]);
      process.once('SIGINT', stop('SIGINT'));
      process.once('SIGTERM', stop('SIGTERM'));
      display.onClose(() => {
        process.stderr.write(`clippy: the X server on ${displayName} went away\n`);
        resolve(EXIT.failure);
      });
    });
    grabber.dispose();
    await actions.dispose();
    // Stopped by a signal on purpose: that is a clean end for a service.
    process.exitCode = code === EXIT.failure ? code : EXIT.ok;
  },
};

export default command;

/** The line that marks clippy's block in tmux.conf, so that --write adds it once. */
export const TMUX_MARKER = '# clippy hotkeys (clippy hotkeys install --tmux)';

/** Where each command's output goes in a binding: feedback comes from --notify, not from here. */
const QUIET = '--quiet --notify >/dev/null 2>&1';

export interface InstallKeys {
  /** How to run clippy from a shell that has not the user's PATH (a tmux job, a desktop). */
  clippy: string;
}

/** tmux bindings (no prefix): Alt+Shift+C captures, Alt+Shift+V pastes; Super never reaches tmux. */
export function tmuxBindings({ clippy }: InstallKeys): string {
  return [
    TMUX_MARKER,
    `bind-key -n M-C run-shell -b "${clippy} capture --focused ${QUIET}"`,
    `bind-key -n M-V run-shell -b "${clippy} paste --focused ${QUIET}"`,
    '',
  ].join('\n');
}

/** Text for desktops whose shortcut settings run a command (also the way under Wayland). */
export function desktopText(desktop: 'gnome' | 'kde' | 'sway', { clippy }: InstallKeys): string {
  const capture = `${clippy} capture --focused --notify`;
  const paste = `${clippy} paste --focused --notify`;
  switch (desktop) {
    case 'gnome': {
      const base = '/org/gnome/settings-daemon/plugins/media-keys/custom-keybindings';
      const schema = 'org.gnome.settings-daemon.plugins.media-keys.custom-keybinding';
      const lines = [
        '# GNOME: Settings > Keyboard > View and Customize Shortcuts > Custom Shortcuts, add two:',
        `#   Name "clippy capture", Command "${capture}", Shortcut Super+Shift+C`,
        `#   Name "clippy paste",   Command "${paste}", Shortcut Super+Shift+V`,
        '# or run these commands (they replace any custom shortcuts you have; add to the list by hand otherwise):',
        `gsettings set org.gnome.settings-daemon.plugins.media-keys custom-keybindings "['${base}/clippy-capture/', '${base}/clippy-paste/']"`,
      ];
      for (const [id, name, command, key] of [
        ['clippy-capture', 'clippy capture', capture, '<Super><Shift>c'],
        ['clippy-paste', 'clippy paste', paste, '<Super><Shift>v'],
      ] as const) {
        lines.push(`gsettings set ${schema}:${base}/${id}/ name '${name}'`);
        lines.push(`gsettings set ${schema}:${base}/${id}/ command '${command}'`);
        lines.push(`gsettings set ${schema}:${base}/${id}/ binding '${key}'`);
      }
      return `${lines.join('\n')}\n`;
    }
    case 'kde':
      return [
        '# KDE Plasma: System Settings > Keyboard > Shortcuts > Add New > Command or Script:',
        `#   Command "${capture}", shortcut Meta+Shift+C`,
        `#   Command "${paste}", shortcut Meta+Shift+V`,
        '',
      ].join('\n');
    case 'sway':
      return [
        '# sway: add to ~/.config/sway/config, then reload (Mod+Shift+c by default):',
        `bindsym Mod4+Shift+c exec ${capture}`,
        `bindsym Mod4+Shift+v exec ${paste}`,
        '',
      ].join('\n');
  }
}

/** A systemd user service that keeps `clippy hotkeys` running in the graphical session. */
export function systemdUnit({ clippy }: InstallKeys): string {
  return [
    '# ~/.config/systemd/user/clippy-hotkeys.service, then:',
    '#   systemctl --user daemon-reload && systemctl --user enable --now clippy-hotkeys',
    '[Unit]',
    'Description=clippy hotkeys (capture and paste agent turns)',
    'PartOf=graphical-session.target',
    'After=graphical-session.target',
    '',
    '[Service]',
    `ExecStart=${clippy} hotkeys`,
    'Restart=on-failure',
    '',
    '[Install]',
    'WantedBy=graphical-session.target',
    '',
  ].join('\n');
}

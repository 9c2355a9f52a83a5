import { describe, expect, it } from 'vitest';
import { DESKTOP_VARS, OUTSIDE_SERVICE_VARS, envWithout } from './env.js';

describe('envWithout', () => {
  const env: NodeJS.ProcessEnv = {
    PATH: '/usr/bin',
    HOME: '/home/u',
    TMUX: '/tmp/tmux-1000/default,1,0',
    TMUX_PANE: '%1',
    DISPLAY: ':0',
    WAYLAND_DISPLAY: 'wayland-0',
    DBUS_SESSION_BUS_ADDRESS: 'unix:path=/run/user/1000/bus',
    GEMINI_API_KEY: 'secret',
    CLIPPY_SOCKET: '/run/user/1000/clippy/clippyd.sock',
    UNSET: undefined,
  };

  it('drops every variable of the groups named, keeps the rest, and leaves env alone', () => {
    const before = { ...env };
    expect(envWithout(env, DESKTOP_VARS)).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/u',
      GEMINI_API_KEY: 'secret',
      CLIPPY_SOCKET: '/run/user/1000/clippy/clippyd.sock',
    });
    expect(envWithout(env, DESKTOP_VARS, OUTSIDE_SERVICE_VARS)).toEqual({
      PATH: '/usr/bin',
      HOME: '/home/u',
    });
    expect(env).toEqual(before);
  });

  it('leaves out unset variables (a child would get the string "undefined")', () => {
    expect('UNSET' in envWithout(env)).toBe(false);
    expect(envWithout(env, ['HOME'])).toMatchObject({ PATH: '/usr/bin', TMUX_PANE: '%1' });
  });
});

import type { XDisplay } from '../x11/x11-display.js';
import { IGNORED_MODIFIER_SETS, MOD, type KeySpec } from './key-spec.js';

/** X11's error code for a key combination another client has grabbed already. */
const BAD_ACCESS = 10;

/** A key to grab and what to call when it is pressed. */
export interface Grab<A extends string> {
  key: KeySpec;
  action: A;
}

/**
 * Grabs global keys on the X display's root window (with and without CapsLock and NumLock, so
 * that neither stops them) and reports their presses. dispose() ungrabs and closes.
 */
export class KeyGrabber<A extends string> {
  private readonly grabbed: { keycode: number; modifiers: number; action: A }[] = [];

  private constructor(private readonly display: XDisplay) {}

  static async start<A extends string>(
    display: XDisplay,
    grabs: Grab<A>[],
    onPress: (action: A) => void,
  ): Promise<KeyGrabber<A>> {
    const grabber = new KeyGrabber<A>(display);
    const refused: string[] = [];
    let current = '';
    display.onError((err) => {
      if (err.error === BAD_ACCESS && current && !refused.includes(current)) refused.push(current);
    });
    for (const grab of grabs) {
      const keycodes = await display.keycodesOf(grab.key.keysym);
      if (keycodes.length === 0) {
        throw new Error(`hotkey ${grab.key.label}: no key on this keyboard types it`);
      }
      current = grab.key.label;
      for (const keycode of keycodes) {
        for (const extra of IGNORED_MODIFIER_SETS) {
          display.grabKey(keycode, grab.key.modifiers | extra);
        }
        grabber.grabbed.push({ keycode, modifiers: grab.key.modifiers, action: grab.action });
      }
      // A refused grab is reported asynchronously: a round trip brings it before the next key.
      await display.sync();
    }
    if (refused.length > 0) {
      grabber.dispose();
      throw new Error(
        `another program holds ${refused.join(' and ')}: choose other keys (config file "hotkeys", or --capture/--paste)`,
      );
    }
    display.onEvent((ev) => {
      if (ev.name !== 'KeyPress') return;
      const held = ev.buttons & ~(MOD.lock | MOD.mod2);
      const hit = grabber.grabbed.find((g) => g.keycode === ev.keycode && g.modifiers === held);
      if (hit) onPress(hit.action);
    });
    return grabber;
  }

  dispose(): void {
    try {
      for (const g of this.grabbed) {
        for (const extra of IGNORED_MODIFIER_SETS)
          this.display.ungrabKey(g.keycode, g.modifiers | extra);
      }
    } finally {
      this.display.dispose();
    }
  }
}

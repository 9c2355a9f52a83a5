/** X11 modifier masks (core protocol, KeyButMask). */
export const MOD = {
  shift: 1,
  lock: 2,
  control: 4,
  mod1: 8,
  /** NumLock on nearly every keymap. */
  mod2: 16,
  /** Super (the Windows key) on nearly every keymap. */
  mod4: 64,
} as const;

/** Lock modifiers that must not stop a hotkey: it is grabbed with each combination of them. */
export const IGNORED_MODIFIER_SETS = [0, MOD.lock, MOD.mod2, MOD.lock | MOD.mod2];

/** What a hotkey is: a keysym and the modifiers held with it. */
export interface KeySpec {
  /** As the user wrote it, normalised (`super+shift+c`). */
  label: string;
  keysym: number;
  modifiers: number;
}

const MODIFIER_NAMES: Record<string, number> = {
  super: MOD.mod4,
  win: MOD.mod4,
  mod4: MOD.mod4,
  ctrl: MOD.control,
  control: MOD.control,
  alt: MOD.mod1,
  mod1: MOD.mod1,
  shift: MOD.shift,
};
const CANONICAL: [number, string][] = [
  [MOD.mod4, 'super'],
  [MOD.control, 'ctrl'],
  [MOD.mod1, 'alt'],
  [MOD.shift, 'shift'],
];

/** Keys by name beside letters and digits: their X keysyms (xproto keysymdef.h). */
const NAMED_KEYS: Record<string, number> = {
  space: 0x20,
  return: 0xff0d,
  enter: 0xff0d,
  tab: 0xff09,
  escape: 0xff1b,
  insert: 0xff63,
  home: 0xff50,
  end: 0xff57,
  pageup: 0xff55,
  pagedown: 0xff56,
};

/** The keysym of a key name: a letter, a digit, F1–F35, or one of NAMED_KEYS. */
function keysymOf(name: string): number | null {
  const n = name.toLowerCase();
  if (/^[a-z0-9]$/.test(n)) return n.charCodeAt(0);
  const f = /^f([1-9]|[12]\d|3[0-5])$/.exec(n);
  if (f) return 0xffbe + Number(f[1]) - 1;
  return NAMED_KEYS[n] ?? null;
}

/**
 * Parses `super+shift+c` (also `Super-Shift-C`, `ctrl+alt+F5`). A hotkey needs Super, Ctrl or
 * Alt: a global grab of a plain or shifted key would take it from every program.
 */
export function parseKeySpec(spec: string): KeySpec {
  const parts = spec
    .trim()
    .split(/[+-]/)
    .map((p) => p.trim())
    .filter(Boolean);
  if (parts.length === 0) throw new Error(`hotkey '${spec}' is empty`);
  const key = parts.pop()!;
  let modifiers = 0;
  for (const part of parts) {
    const mask = MODIFIER_NAMES[part.toLowerCase()];
    if (mask === undefined) {
      throw new Error(
        `hotkey '${spec}': '${part}' is not a modifier (use super, ctrl, alt, shift)`,
      );
    }
    modifiers |= mask;
  }
  if ((modifiers & (MOD.mod4 | MOD.control | MOD.mod1)) === 0) {
    throw new Error(
      `hotkey '${spec}' needs a modifier (super, ctrl or alt): a global key without one would be taken from every program`,
    );
  }
  const keysym = keysymOf(key);
  if (keysym === null) {
    throw new Error(
      `hotkey '${spec}': unknown key '${key}' (use a letter, a digit, F1-F35, or ${Object.keys(NAMED_KEYS).join(', ')})`,
    );
  }
  const mods = CANONICAL.filter(([m]) => modifiers & m).map(([, name]) => name);
  return { label: [...mods, key.toLowerCase()].join('+'), keysym, modifiers };
}

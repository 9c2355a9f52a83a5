import type { XClient, XDisplayInfo, XEvent } from 'x11';
import { loadPackage } from '../load-module.js';

/** How long connecting to the X server may take: a local server answers at once. */
export const X11_CONNECT_TIMEOUT_MS = 2_000;

/** X11 constants used here (X protocol, chapter "Predefined atoms" and GrabKey). */
const ATOM_CARDINAL = 6;
const ATOM_WINDOW = 33;
const ANY_PROPERTY_TYPE = 0;
const GRAB_MODE_ASYNC = 1;
/** GetInputFocus answers these for "no window" and "whatever is under the pointer". */
const FOCUS_NONE = 0;
const FOCUS_POINTER_ROOT = 1;

/** A connection to an X server, with the few requests clippy makes, as promises. */
export class XDisplay {
  private readonly atoms = new Map<string, number>();

  private constructor(
    private readonly info: XDisplayInfo,
    readonly name: string,
  ) {}

  /** Connects to `display` ($DISPLAY by default); rejects when no X server answers. */
  static connect(display = process.env.DISPLAY): Promise<XDisplay> {
    if (!display) return Promise.reject(new Error('no X display ($DISPLAY is unset)'));
    return loadPackage<typeof import('x11')>('x11').then(
      (x11) =>
        new Promise<XDisplay>((resolve, reject) => {
          const timer = setTimeout(() => {
            reject(new Error(`the X server on ${display} did not answer`));
          }, X11_CONNECT_TIMEOUT_MS);
          const client = x11.createClient({ display }, (err, info) => {
            clearTimeout(timer);
            if (err) reject(new Error(`cannot open X display ${display}: ${err.message}`));
            else resolve(new XDisplay(info, display));
          });
          // Errors after setup go to the pending request's callback; the rest must not crash us.
          client.on('error', () => {});
        }),
    );
  }

  get client(): XClient {
    return this.info.client;
  }

  get root(): number {
    return this.info.screen[0]!.root;
  }

  private call<T>(fn: (cb: (err: Error | undefined | null, r: T) => void) => void): Promise<T> {
    return new Promise((resolve, reject) =>
      fn((err, r) =>
        err ? reject(err instanceof Error ? err : new Error(String(err))) : resolve(r),
      ),
    );
  }

  async atom(name: string): Promise<number> {
    const known = this.atoms.get(name);
    if (known !== undefined) return known;
    const atom = await this.call<number>((cb) => this.client.InternAtom(false, name, cb));
    this.atoms.set(name, atom);
    return atom;
  }

  /** A 32-bit property's first value (a CARDINAL or WINDOW), or null when the window has none. */
  async cardinal(wid: number, name: string): Promise<number | null> {
    const atom = await this.atom(name);
    const prop = await this.call<{ type: number; format: number; data: Buffer }>((cb) =>
      this.client.GetProperty(0, wid, atom, ANY_PROPERTY_TYPE, 0, 1, cb),
    );
    if (prop.format !== 32 || prop.data.length < 4) return null;
    if (prop.type !== ATOM_CARDINAL && prop.type !== ATOM_WINDOW) return null;
    return prop.data.readUInt32LE(0);
  }

  /** The window the user works in: the window manager's active window, else the input focus. */
  async activeWindow(): Promise<number | null> {
    const active = await this.cardinal(this.root, '_NET_ACTIVE_WINDOW');
    if (active) return active;
    const { focus } = await this.call<{ focus: number }>((cb) => this.client.GetInputFocus(cb));
    return focus === FOCUS_NONE || focus === FOCUS_POINTER_ROOT ? null : focus;
  }

  /** The process that owns `wid` or one of its ancestors (`_NET_WM_PID`), or null. */
  async windowPid(wid: number): Promise<number | null> {
    for (let w = wid; w && w !== this.root;) {
      const pid = await this.cardinal(w, '_NET_WM_PID');
      if (pid) return pid;
      const tree = await this.call<{ parent: number }>((cb) => this.client.QueryTree(w, cb));
      w = tree.parent;
    }
    return null;
  }

  /** Keycodes that type `keysym` (in any column of the keyboard map). */
  async keycodesOf(keysym: number): Promise<number[]> {
    const { min_keycode: min, max_keycode: max } = this.info;
    const map = await this.call<number[][]>((cb) =>
      this.client.GetKeyboardMapping(min, max - min + 1, cb),
    );
    const codes: number[] = [];
    map.forEach((row, i) => {
      if (row.includes(keysym)) codes.push(min + i);
    });
    return codes;
  }

  /** Grabs a key with these modifiers on the root window: its presses come to this client. */
  grabKey(keycode: number, modifiers: number): void {
    this.client.GrabKey(this.root, false, modifiers, keycode, GRAB_MODE_ASYNC, GRAB_MODE_ASYNC);
  }

  ungrabKey(keycode: number, modifiers: number): void {
    this.client.UngrabKey(this.root, keycode, modifiers);
  }

  onEvent(listener: (ev: XEvent) => void): void {
    this.client.on('event', listener);
  }

  /** Resolves once every request sent so far has been processed (a round trip). */
  async sync(): Promise<void> {
    await this.call((cb) => this.client.GetInputFocus(cb));
  }

  /** X protocol errors of requests that have no reply (a GrabKey another client holds). */
  onError(listener: (err: Error & { error?: number }) => void): void {
    this.client.on('error', listener);
  }

  onClose(listener: () => void): void {
    this.client.on('end', listener);
  }

  dispose(): void {
    this.client.terminate();
  }
}
